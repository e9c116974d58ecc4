#pragma once
/// Base64 as Go's encoding/base64 StdEncoding (RFC 4648 standard alphabet, '=' padding) — what
/// Kubernetes uses for `*-data` fields and []byte in JSON, Sprig for b64enc/b64dec, YAML for
/// !!binary, torch.distributed.elastic's etcd store for its keys and values, and RFC 6455 for
/// Sec-WebSocket-Accept. The one implementation in ejob.

#include <optional>
#include <string>
#include <string_view>

namespace ejob {

/// Encodes bytes, padded with '='.
std::string base64_encode(std::string_view bytes);

/// Decodes as Go's StdEncoding.DecodeString: '\r' and '\n' are skipped, padding is required,
/// nothing may follow it. On bad input `error` gets Go's text, "illegal base64 data at input
/// byte N" (N as Go counts it), and the bytes decoded before that point are returned;
/// otherwise `error` is left empty.
std::string base64_decode(std::string_view text, std::string& error);

/// The same; nullopt on bad input.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace ejob
