# Warnings for Sluice's own code: -Wall -Wextra -Werror (generated protobuf code is exempt).
function(sluice_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-unused-parameter)
endfunction()
