#!/bin/sh
# Seeds for xrl_fuzzer: writes a few XRLs into the corpus folder $1.
dir="$1"
mkdir -p "$dir"
printf '%s' 'finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=10.0.0.0/8&nexthop:ipv4=192.0.2.1' > "$dir/seed1"
printf '%s' 'finder://x/codec_test/1.0/m?i32:i32=-5&u64:u64=7&txt:txt=a%20b&bin:binary=00ff&ipv6:ipv6=::1&mac:mac=00:11:22:33:44:55' > "$dir/seed2"
printf '%s' 'finder://x/codec_test/1.0/m?inners:list<msg>=(a:u32=1&net:ipv4net=10.0.0.0/8),(a:u32=2&values:list<u32>=1,2)&txts:list<txt>=a,"",c' > "$dir/seed3"
printf '%s' 'finder://x/codec_test/1.0/m?ip:ipvx=fe80::1&nets:list<ipvxnet>=10.0.0.0/8,2001:db8::/32&color:txt=RED&flag:bool=true&dbl:fp64=0.5' > "$dir/seed4"
