#pragma once
// Tells the service manager where the router manager stands (systemd's Type=notify), through
// sd_notify(3) of libsystemd. Every call does nothing when NOTIFY_SOCKET is unset (not started
// by systemd, nor by anything else that listens); a message that cannot be sent is logged as a
// warning, and the router runs on regardless.

namespace sluice::rtrmgr {

// READY=1: every process has registered with the Finder and taken its configuration (also
// after a reload announced by NotifyReloading).
void NotifyReady();
// RELOADING=1: a reload of the configuration file (SIGHUP) has begun; NotifyReady follows
// once it has been applied.
void NotifyReloading();
// STOPPING=1: a deliberate stop has begun (SIGTERM, SIGINT, common/1.0 shutdown).
void NotifyStopping();

}  // namespace sluice::rtrmgr
