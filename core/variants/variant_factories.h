#pragma once

#include "core/variant.h"

namespace attnlab {

// One factory per file in core/variants/; registry.cpp lists them in display order.
VariantInfo makeFullVariant();
VariantInfo makeStridedVariant();
VariantInfo makeFixedVariant();
VariantInfo makeLongformerVariant();
VariantInfo makeChunkVariant();
VariantInfo makeXlVariant();
VariantInfo makeLinearVariant();
VariantInfo makePerformerVariant();
VariantInfo makeLinformerVariant();
VariantInfo makeLshVariant();
VariantInfo makeRelu2Variant();
VariantInfo makeMixedChunkVariant();
VariantInfo makeBigBirdVariant();
VariantInfo makeCustomVariant();

} // namespace attnlab
