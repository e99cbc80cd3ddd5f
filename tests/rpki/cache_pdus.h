#pragma once
// RTR PDUs as a cache sends them (RFC 8210 §5), for tests: built by hand, not by the codec
// under test.

#include <boost/endian/conversion.hpp>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace sluice::rpki::testing {

using Octets = std::vector<uint8_t>;

inline Octets U32(uint32_t v) {
  Octets out(4);
  boost::endian::store_big_u32(out.data(), v);
  return out;
}

inline Octets Cat(std::initializer_list<Octets> parts) {
  Octets out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline Octets RawPdu(uint8_t version, uint8_t type, uint16_t field, const Octets& body) {
  Octets out(8 + body.size());
  std::copy(body.begin(), body.end(), out.begin() + 8);
  out[0] = version;
  out[1] = type;
  boost::endian::store_big_u16(out.data() + 2, field);
  boost::endian::store_big_u32(out.data() + 4, static_cast<uint32_t>(out.size()));
  return out;
}

inline Octets Ipv4Prefix(uint8_t version, bool announce, uint32_t address, uint8_t length,
                         uint8_t max_length, uint32_t asn) {
  return RawPdu(version, 4, 0,
                Cat({{uint8_t(announce ? 1 : 0), length, max_length, 0}, U32(address), U32(asn)}));
}
inline Octets SerialNotify(uint8_t version, uint16_t session, uint32_t serial) {
  return RawPdu(version, 0, session, U32(serial));
}
inline Octets CacheResponse(uint8_t version, uint16_t session) {
  return RawPdu(version, 3, session, {});
}
inline Octets EndOfData(uint8_t version, uint16_t session, uint32_t serial, uint32_t refresh = 3600,
                        uint32_t retry = 600, uint32_t expire = 7200) {
  if (version == 0) return RawPdu(0, 7, session, U32(serial));
  return RawPdu(version, 7, session, Cat({U32(serial), U32(refresh), U32(retry), U32(expire)}));
}
inline Octets CacheReset(uint8_t version) { return RawPdu(version, 8, 0, {}); }
inline Octets ErrorReport(uint8_t version, uint16_t code, const Octets& offending) {
  return RawPdu(version, 10, code,
                Cat({U32(static_cast<uint32_t>(offending.size())), offending, U32(0)}));
}

}  // namespace sluice::rpki::testing
