# sluice_proto_library(NAME PROTOS a.proto b.proto DEPS other_proto_libs)
# Generates messages and gRPC services for .proto files under ipc/proto and builds them into
# sluice_NAME. Imports are rooted at the repository (import "ipc/proto/common.proto").
function(sluice_proto_library name)
  cmake_parse_arguments(A "" "" "PROTOS;DEPS" ${ARGN})
  set(_srcs)
  foreach(_proto ${A_PROTOS})
    get_filename_component(_abs ${_proto} ABSOLUTE)
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_abs})
    string(REGEX REPLACE "\\.proto$" "" _stem ${_rel})
    set(_out ${PROJECT_BINARY_DIR}/${_stem}.pb.cc ${PROJECT_BINARY_DIR}/${_stem}.pb.h
             ${PROJECT_BINARY_DIR}/${_stem}.grpc.pb.cc ${PROJECT_BINARY_DIR}/${_stem}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${_out}
      COMMAND protobuf::protoc
        --proto_path=${PROJECT_SOURCE_DIR}
        --cpp_out=${PROJECT_BINARY_DIR}
        --grpc_out=${PROJECT_BINARY_DIR}
        --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>
        ${_rel}
      DEPENDS ${_abs} protobuf::protoc gRPC::grpc_cpp_plugin
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      COMMENT "protoc ${_rel}")
    list(APPEND _srcs ${_out})
  endforeach()
  add_library(sluice_${name} STATIC ${_srcs})
  target_include_directories(sluice_${name} PUBLIC ${PROJECT_BINARY_DIR})
  target_link_libraries(sluice_${name} PUBLIC ${A_DEPS} protobuf::libprotobuf gRPC::grpc++)
endfunction()
