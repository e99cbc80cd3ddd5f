# Sourced by run.sh and test.sh: installs the Debian 12 packages Sluice needs when missing.
#   sluice_install_deps build     compilers, libraries, test frameworks
#   sluice_install_deps peers     BGP daemons, the RPKI cache and tools used as real peers,
#                                 oracles and terminals (tmux for the shell test, jq), the BMP
#                                 collector (pmacct's pmbmpd) and promtool (prometheus)
#   sluice_ensure_accounts        (root) the system user and groups an installed Sluice has:
#                                 user sluice (its processes), groups sluice-ops (who may use the
#                                 CLI, and operators) and sluice-admin (as debian/sysusers.conf)
# clang-tidy: test.sh's function-size check. dpkg-dev: dpkg-shlibdeps, with which CPack writes
# the package's Depends; systemd: systemd-analyze, which the package test verifies the unit with.
SLUICE_BUILD_PKGS=(cmake ninja-build g++ clang clang-tidy libclang-rt-14-dev ccache pkg-config
  libboost-dev libabsl-dev libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libbz2-dev libmnl-dev libssl-dev
  libcap-dev libsystemd-dev libgoogle-perftools-dev libcli11-dev libedit-dev nlohmann-json3-dev
  prometheus-cpp-dev iproute2
  openssl python3 dpkg-dev systemd)
SLUICE_PEER_PKGS=(bird2 frr gobgpd openbgpd exabgp bgpdump gnuplot-nox stayrtr tmux jq pmacct
  prometheus)

sluice_install_deps() {
  local want=() missing=() p
  for group in "$@"; do
    case "$group" in
      build) want+=("${SLUICE_BUILD_PKGS[@]}") ;;
      peers) want+=("${SLUICE_PEER_PKGS[@]}") ;;
    esac
  done
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" ||
    { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }
  # Debian starts these daemons as system services on install; the tests run their own copies.
  for svc in bird frr openbgpd gobgpd exabgp stayrtr prometheus prometheus-node-exporter pmacctd \
    nfacctd sfacctd pmbmpd pmbgpd pmtelemetryd uacctd; do
    $sudo systemctl disable --now "$svc" >/dev/null 2>&1 || true
  done
}

sluice_ensure_accounts() {
  [ "$(id -u)" -eq 0 ] || return 0
  local g
  for g in sluice-ops sluice-admin; do
    getent group "$g" >/dev/null || groupadd --system "$g"
  done
  getent passwd sluice >/dev/null ||
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin sluice
}
