#pragma once
// Request body decoding for the reward server's HTTP front end: Content-Encoding gzip/deflate,
// inflated with zlib up to a bound (a 500 KB gzip body can inflate to 500 MiB). Internal to the
// serve module.
#include <cstddef>
#include <string>
#include <string_view>

namespace sqlgrade::serve {

enum class BodyCoding { Identity, Deflate, Unsupported };
// The Content-Encoding header's coding: "" / identity, gzip / x-gzip / deflate (one coding only).
BodyCoding body_coding(std::string_view content_encoding);

enum class InflateResult { Ok, TooLarge, Invalid };
// Inflates gzip (one or more members) or zlib data into *out, stopping as soon as the output would
// exceed max_out (TooLarge; *out then holds at most max_out bytes). Invalid for corrupt or truncated
// data, raw deflate without a zlib header, or trailing garbage.
InflateResult inflate_bounded(std::string_view in, size_t max_out, std::string* out);

}  // namespace sqlgrade::serve
