#pragma once
// The fea_ifmgr/1.0 methods (ipc/proto/fea_ifmgr.proto), each tied to its request and reply types
// (ipc/method.h). Served by sluice-fea (fea/service/fea_ifmgr_service.cc). Called by sluice-rib
// (subscribe, rib/service/xrl_interface_source.cc), the router manager (interfaces and
// addresses, rtrmgr/process/configurator.cc) and `sluice show interfaces`.
// Header-only: a user links sluice_fea_ifmgr_proto and sluice_ipc.

#include "ipc/method.h"
#include "ipc/proto/fea_ifmgr.pb.h"

namespace sluice::ipc::methods::fea_ifmgr {

namespace v1 = ::sluice::fea_ifmgr::v1;

inline const Method<v1::ListInterfacesRequest, v1::ListInterfacesReply> kListInterfaces{
    "fea_ifmgr/1.0/list_interfaces"};
inline const Method<v1::GetInterfaceRequest, v1::GetInterfaceReply> kGetInterface{
    "fea_ifmgr/1.0/get_interface"};
inline const Method<v1::AddInterfaceRequest, v1::AddInterfaceReply> kAddInterface{
    "fea_ifmgr/1.0/add_interface"};
inline const Method<v1::RemoveInterfaceRequest, v1::RemoveInterfaceReply> kRemoveInterface{
    "fea_ifmgr/1.0/remove_interface"};
inline const Method<v1::SetEnabledRequest, v1::SetEnabledReply> kSetEnabled{
    "fea_ifmgr/1.0/set_enabled"};
inline const Method<v1::SetMtuRequest, v1::SetMtuReply> kSetMtu{"fea_ifmgr/1.0/set_mtu"};
inline const Method<v1::AddAddressRequest, v1::AddAddressReply> kAddAddress{
    "fea_ifmgr/1.0/add_address"};
inline const Method<v1::RemoveAddressRequest, v1::RemoveAddressReply> kRemoveAddress{
    "fea_ifmgr/1.0/remove_address"};
inline const Method<v1::SubscribeRequest, v1::SubscribeReply> kSubscribe{"fea_ifmgr/1.0/subscribe"};
inline const Method<v1::SubscribeRequest, v1::SubscribeReply> kUnsubscribe{
    "fea_ifmgr/1.0/unsubscribe"};

}  // namespace sluice::ipc::methods::fea_ifmgr
