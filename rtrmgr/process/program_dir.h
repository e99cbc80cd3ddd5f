#pragma once
// Where the router manager finds the programs it starts (sluice-finder, sluice-fea, sluice-rib,
// sluice-bgp, sluice-static). A program directory has one of two layouts:
//
//   installed    DIR/sluice-finder, DIR/sluice-fea, ...      (DIR is PREFIX/lib/sluice)
//   build tree   DIR/finder/sluice-finder, DIR/fea/sluice-fea, DIR/bgp/process/sluice-bgp, ...
//
// A directory that holds sluice-finder itself is read as the installed layout, any other as a
// build tree. `sluice-rtrmgr --bin-dir DIR` names the directory; without it, DefaultProgramDir.

#include <string>

namespace sluice::rtrmgr {

// PREFIX/lib/sluice when this program is PREFIX/sbin/sluice-rtrmgr and that directory holds
// sluice-finder (an installed Sluice); otherwise the build tree this program is in
// (BUILD/rtrmgr/process/sluice-rtrmgr gives BUILD). "." when /proc/self/exe cannot be read.
std::string DefaultProgramDir();

// The path of `program` (e.g. "sluice-bgp") in `dir`, in the layout `dir` has (above).
std::string ProgramPath(const std::string& dir, const std::string& program);

}  // namespace sluice::rtrmgr
