#include "views/figures/preset_papers.h"

#include <map>

namespace attnlab {

QString presetPaper(const std::string& preset) {
    static const std::map<std::string, const char*> papers = {
        {"sparse-transformer", "Sparse Transformer (Child et al., 2019)"},
        {"sparse-transformer-heads", "Sparse Transformer (Child et al., 2019)"},
        {"sparse-transformer-image", "Sparse Transformer (Child et al., 2019)"},
        {"sparse-transformer-image-reach", "Sparse Transformer (Child et al., 2019)"},
        {"longformer", "Longformer (Beltagy et al., 2020)"},
        {"dilated-global", "Longformer (Beltagy et al., 2020)"},
        {"bigbird", "BigBird (Zaheer et al., 2020)"},
        {"bigbird-blocks", "BigBird (Zaheer et al., 2020)"},
        {"bigbird-components", "BigBird (Zaheer et al., 2020)"},
        {"flash", "FLASH (Hua et al., 2022)"},
        {"transformer-xl", "Transformer-XL (Dai et al., 2019)"},
        {"bert-flops", "BERT-base (Devlin et al., 2019)"},
        {"streaming-llm", "StreamingLLM (Xiao et al., 2023)"},
        {"swin", "Swin Transformer (Liu et al., 2021)"},
        {"axial", "Ho et al., 2019"},
        {"natten", "NATTEN (Hassani et al., 2022–2023)"},
        {"sliding-tile", "Zhang et al., 2025"},
        {"sliding-tile-raster", "Zhang et al., 2025"},
    };
    const auto found = papers.find(preset);
    return found == papers.end() ? QString() : QString::fromUtf8(found->second);
}

} // namespace attnlab
