#pragma once

#include "views/animation/rgb_frame.h"

#include <memory>
#include <string>

namespace attnlab {

// An H.264 MP4 written into memory with libavcodec and libavformat, as slide programs and browsers play
// it: yuv420p (BT.709, limited range), dimensions rounded up to even numbers (the added column or row
// white), the index (moov) at the front of the file (faststart), a constant frame rate. The encoder is
// libx264 when libavcodec has it, else its first H.264 encoder (encoderName()). Throws InputError naming
// `path` when no H.264 encoder exists or encoding fails.
class Mp4Writer {
  public:
    Mp4Writer(std::string path, int width, int height, double fps);
    ~Mp4Writer();
    Mp4Writer(const Mp4Writer&) = delete;
    Mp4Writer& operator=(const Mp4Writer&) = delete;

    // `frame` must have the size given to the constructor; each frame lasts 1 / fps.
    void addFrame(const RgbFrame& frame);
    // Flushes the encoder, writes the index and returns the file's bytes.
    std::string finish();
    // The H.264 encoder libavcodec provides ("libx264"), or empty when it has none.
    static std::string encoderName();

  private:
    struct Codec;
    std::unique_ptr<Codec> m_codec;
    std::string m_path;
};

} // namespace attnlab
