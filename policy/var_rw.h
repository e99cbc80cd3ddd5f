#pragma once
// VarRW: how a program reads and writes a route. Each protocol implements it over its own route
// representation (XORP's VarRW, policy/backend): BGP over its interned path attributes, the RIB
// over its routes. The VM calls it through the variable ids of policy/var.h — never by name.
//
// Implementing it:
//
//   class BgpVarRW : public policy::VarRW {
//    public:
//     policy::Value Read(policy::VarId id) override {
//       switch (id) {
//         case policy::VarId::kNetwork: return policy::Value::Of(route_.prefix);
//         case policy::VarId::kLocalPref:
//           return attrs_->has_local_pref ? policy::Value::U32(attrs_->local_pref)
//                                         : policy::Value::None();
//         case policy::VarId::kCommunity: return policy::Value::Communities(attrs_->communities);
//         ...
//         default: return policy::Value::None();
//       }
//     }
//     void Write(policy::VarId id, const policy::Value& v) override {
//       // copy-on-write: the first write makes a private copy of the interned attributes
//       ...
//     }
//   };
//
// Types per variable are listed in policy/var.h; Write() receives only those (kNexthop also
// kNexthopKeyword). Reads are cached by the VM for the rest of the run until the variable is
// written, so Read() may do some work. A protocol that cannot write a variable says so at compile
// time (CompileOptions::writable); Write() is then never called for it.
// Not called concurrently: one VarRW serves one run on one thread.

#include "policy/value.h"
#include "policy/var.h"

namespace sluice::policy {

class VarRW {
 public:
  virtual ~VarRW() = default;
  // The value of `id` on this route, or Value::None() when the route has none.
  virtual Value Read(VarId id) = 0;
  // Sets `id`; the value's views are valid only during the call.
  virtual void Write(VarId id, const Value& value) = 0;
};

}  // namespace sluice::policy
