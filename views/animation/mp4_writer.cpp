#include "views/animation/mp4_writer.h"

#include "core/errors.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <cstring>

namespace attnlab {

namespace {

constexpr int kIoBufferBytes = 1 << 16;

// A position in the file being built in memory: the muxer writes through one, and reads through a second
// when it moves the index to the front (faststart).
struct Cursor {
    std::string* bytes;
    std::int64_t position = 0;
};

int readBytes(void* opaque, std::uint8_t* buffer, int size) {
    auto* cursor = static_cast<Cursor*>(opaque);
    const std::int64_t left = static_cast<std::int64_t>(cursor->bytes->size()) - cursor->position;
    if (left <= 0) return AVERROR_EOF;
    const int count = static_cast<int>(std::min<std::int64_t>(left, size));
    std::memcpy(buffer, cursor->bytes->data() + cursor->position, static_cast<std::size_t>(count));
    cursor->position += count;
    return count;
}

int writeBytes(void* opaque, std::uint8_t* buffer, int size) { // FFmpeg 5 passes the buffer as non-const
    auto* cursor = static_cast<Cursor*>(opaque);
    const std::size_t end = static_cast<std::size_t>(cursor->position) + static_cast<std::size_t>(size);
    if (cursor->bytes->size() < end) cursor->bytes->resize(end);
    std::memcpy(cursor->bytes->data() + cursor->position, buffer, static_cast<std::size_t>(size));
    cursor->position = static_cast<std::int64_t>(end);
    return size;
}

std::int64_t seekBytes(void* opaque, std::int64_t offset, int whence) {
    auto* cursor = static_cast<Cursor*>(opaque);
    const auto size = static_cast<std::int64_t>(cursor->bytes->size());
    if (whence & AVSEEK_SIZE) return size;
    std::int64_t target = offset;
    if ((whence & ~AVSEEK_FORCE) == SEEK_CUR) target += cursor->position;
    if ((whence & ~AVSEEK_FORCE) == SEEK_END) target += size;
    if (target < 0) return AVERROR(EINVAL);
    return cursor->position = target;
}

AVIOContext* openCursor(std::string* bytes, bool write) {
    auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferBytes));
    auto* cursor = new Cursor{bytes};
    AVIOContext* io =
        avio_alloc_context(buffer, kIoBufferBytes, write ? 1 : 0, cursor, write ? nullptr : readBytes,
                           write ? writeBytes : nullptr, seekBytes);
    if (!io) {
        av_free(buffer);
        delete cursor;
    }
    return io;
}

void closeCursor(AVIOContext* io) {
    if (!io) return;
    delete static_cast<Cursor*>(io->opaque);
    av_freep(&io->buffer);
    avio_context_free(&io);
}

// The muxer's second look at its own output (faststart) reads the bytes written so far.
int openForReading(AVFormatContext* format, AVIOContext** io, const char*, int flags, AVDictionary**) {
    if (flags & AVIO_FLAG_WRITE) return AVERROR(EPERM);
    auto* bytes = static_cast<std::string*>(format->opaque);
    *io = openCursor(bytes, false);
    return *io ? 0 : AVERROR(ENOMEM);
}

int closeReading(AVFormatContext*, AVIOContext* io) {
    closeCursor(io);
    return 0;
}

std::string errorText(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

const AVCodec* h264Encoder() {
    if (const AVCodec* x264 = avcodec_find_encoder_by_name("libx264")) return x264;
    return avcodec_find_encoder(AV_CODEC_ID_H264);
}

} // namespace

struct Mp4Writer::Codec {
    std::string bytes;
    AVFormatContext* format = nullptr;
    AVCodecContext* encoder = nullptr;
    AVStream* stream = nullptr;
    SwsContext* scaler = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    RgbFrame padded; // the frame at even dimensions
    std::int64_t next = 0;

    ~Codec() {
        sws_freeContext(scaler);
        av_frame_free(&frame);
        av_packet_free(&packet);
        avcodec_free_context(&encoder);
        if (format) {
            closeCursor(format->pb);
            avformat_free_context(format);
        }
    }
};

Mp4Writer::Mp4Writer(std::string path, int width, int height, double fps)
    : m_codec(std::make_unique<Codec>()), m_path(std::move(path)) {
    auto check = [this](int code, const char* what) {
        if (code < 0) throw InputError("cannot write '" + m_path + "': " + what + ": " + errorText(code));
    };
    // The library's own log would go to stderr, where a command prints only its one-line errors.
    av_log_set_level(AV_LOG_QUIET);
    const AVCodec* codec = h264Encoder();
    if (!codec)
        throw InputError("cannot write '" + m_path +
                         "': this libavcodec has no H.264 encoder (Debian's libavcodec59 has libx264)");
    Codec& c = *m_codec;
    check(avformat_alloc_output_context2(&c.format, nullptr, "mp4", nullptr), "the MP4 muxer");
    c.format->opaque = &c.bytes;
    c.format->io_open = openForReading;
    c.format->io_close2 = closeReading;
    c.format->url = av_strdup("attnlab.mp4");
    c.format->pb = openCursor(&c.bytes, true);
    c.format->flags |= AVFMT_FLAG_CUSTOM_IO;
    c.stream = avformat_new_stream(c.format, nullptr);
    c.encoder = avcodec_alloc_context3(codec);
    c.frame = av_frame_alloc();
    c.packet = av_packet_alloc();
    if (!c.format->pb || !c.stream || !c.encoder || !c.frame || !c.packet)
        check(AVERROR(ENOMEM), "allocating the encoder");
    const AVRational rate = av_d2q(fps, 60000);
    c.encoder->width = width + width % 2;
    c.encoder->height = height + height % 2;
    c.encoder->pix_fmt = AV_PIX_FMT_YUV420P;
    c.encoder->time_base = av_inv_q(rate);
    c.encoder->framerate = rate;
    c.encoder->sample_aspect_ratio = AVRational{1, 1};
    c.encoder->gop_size = std::max(1, static_cast<int>(fps * 2));
    c.encoder->color_range = AVCOL_RANGE_MPEG;
    c.encoder->colorspace = AVCOL_SPC_BT709;
    c.encoder->color_primaries = AVCOL_PRI_BT709;
    c.encoder->color_trc = AVCOL_TRC_BT709;
    if (c.format->oformat->flags & AVFMT_GLOBALHEADER) c.encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // libx264's settings for line art; another encoder ignores what it does not know.
    av_opt_set(c.encoder->priv_data, "preset", "medium", 0);
    av_opt_set(c.encoder->priv_data, "tune", "animation", 0);
    av_opt_set(c.encoder->priv_data, "crf", "18", 0);
    av_opt_set(c.encoder->priv_data, "profile", "high", 0);
    check(avcodec_open2(c.encoder, codec, nullptr), "opening the H.264 encoder");
    check(avcodec_parameters_from_context(c.stream->codecpar, c.encoder), "the stream parameters");
    c.stream->time_base = c.encoder->time_base;
    c.stream->avg_frame_rate = rate;
    AVDictionary* options = nullptr;
    av_dict_set(&options, "movflags", "+faststart", 0);
    const int written = avformat_write_header(c.format, &options);
    av_dict_free(&options);
    check(written, "the MP4 header");
    c.frame->format = AV_PIX_FMT_YUV420P;
    c.frame->width = c.encoder->width;
    c.frame->height = c.encoder->height;
    check(av_frame_get_buffer(c.frame, 0), "the frame buffer");
    c.scaler = sws_getContext(c.encoder->width, c.encoder->height, AV_PIX_FMT_RGB32, c.encoder->width,
                              c.encoder->height, AV_PIX_FMT_YUV420P, SWS_BICUBIC | SWS_ACCURATE_RND, nullptr,
                              nullptr, nullptr);
    if (!c.scaler) check(AVERROR(ENOMEM), "the colour conversion");
    sws_setColorspaceDetails(c.scaler, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                             sws_getCoefficients(SWS_CS_ITU709), 0, 0, 1 << 16, 1 << 16);
    c.padded = RgbFrame{c.encoder->width, c.encoder->height,
                        std::vector<std::uint32_t>(static_cast<std::size_t>(c.encoder->width) *
                                                       static_cast<std::size_t>(c.encoder->height),
                                                   0xFFFFFFFFu)};
}

Mp4Writer::~Mp4Writer() = default;

std::string Mp4Writer::encoderName() {
    const AVCodec* codec = h264Encoder();
    return codec ? codec->name : "";
}

void Mp4Writer::addFrame(const RgbFrame& frame) {
    Codec& c = *m_codec;
    if (frame.width + frame.width % 2 != c.padded.width || frame.height + frame.height % 2 != c.padded.height)
        throw InputError("cannot write '" + m_path + "': a frame of another size than the first");
    for (int y = 0; y < frame.height; ++y)
        std::copy_n(frame.pixels.begin() + static_cast<std::ptrdiff_t>(y) * frame.width, frame.width,
                    c.padded.pixels.begin() + static_cast<std::ptrdiff_t>(y) * c.padded.width);
    int code = av_frame_make_writable(c.frame);
    if (code >= 0) {
        const auto* source = reinterpret_cast<const std::uint8_t*>(c.padded.pixels.data());
        const int stride = 4 * c.padded.width;
        sws_scale(c.scaler, &source, &stride, 0, c.padded.height, c.frame->data, c.frame->linesize);
        c.frame->pts = c.next++;
        code = avcodec_send_frame(c.encoder, c.frame);
    }
    if (code < 0) throw InputError("cannot write '" + m_path + "': encoding a frame: " + errorText(code));
    while ((code = avcodec_receive_packet(c.encoder, c.packet)) >= 0) {
        av_packet_rescale_ts(c.packet, c.encoder->time_base, c.stream->time_base);
        c.packet->stream_index = c.stream->index;
        code = av_interleaved_write_frame(c.format, c.packet);
        if (code < 0) throw InputError("cannot write '" + m_path + "': writing a frame: " + errorText(code));
    }
    if (code != AVERROR(EAGAIN) && code != AVERROR_EOF)
        throw InputError("cannot write '" + m_path + "': encoding: " + errorText(code));
}

std::string Mp4Writer::finish() {
    Codec& c = *m_codec;
    int code = avcodec_send_frame(c.encoder, nullptr);
    while (code >= 0 && (code = avcodec_receive_packet(c.encoder, c.packet)) >= 0) {
        av_packet_rescale_ts(c.packet, c.encoder->time_base, c.stream->time_base);
        c.packet->stream_index = c.stream->index;
        code = av_interleaved_write_frame(c.format, c.packet);
    }
    if (code != AVERROR_EOF)
        throw InputError("cannot write '" + m_path + "': flushing the encoder: " + errorText(code));
    code = av_write_trailer(c.format);
    if (code < 0) throw InputError("cannot write '" + m_path + "': the MP4 index: " + errorText(code));
    avio_flush(c.format->pb);
    return std::move(c.bytes);
}

} // namespace attnlab
