#include "sqlgrade/serve/http_body.hpp"

#include <zlib.h>

#include <climits>

#include "sqlgrade/core/text.hpp"

namespace sqlgrade::serve {

BodyCoding body_coding(std::string_view content_encoding) {
  std::string c = to_lower(trim(content_encoding));
  if (c.empty() || c == "identity") return BodyCoding::Identity;
  if (c == "gzip" || c == "x-gzip" || c == "deflate") return BodyCoding::Deflate;
  return BodyCoding::Unsupported;
}

InflateResult inflate_bounded(std::string_view in, size_t max_out, std::string* out) {
  out->clear();
  if (in.size() > UINT_MAX) return InflateResult::TooLarge;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return InflateResult::Invalid;  // +32: gzip or zlib header
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&zs};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char buf[1 << 16];
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    int rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) return InflateResult::Invalid;  // corrupt, or truncated (Z_BUF_ERROR)
    size_t got = sizeof buf - zs.avail_out;
    if (got > max_out - out->size()) return InflateResult::TooLarge;
    out->append(buf, got);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return InflateResult::Ok;
      if (inflateReset(&zs) != Z_OK) return InflateResult::Invalid;  // another gzip member follows
    }
  }
}

}  // namespace sqlgrade::serve
