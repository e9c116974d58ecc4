#pragma once
/// The pickle opcodes that a torch rendezvous state uses (CPython's Lib/pickletools.py names),
/// shared by the state's writer and reader.

namespace ejob::agent::pickle_op {

inline constexpr unsigned char k_mark = '(';
inline constexpr unsigned char k_stop = '.';
inline constexpr unsigned char k_binint = 'J';
inline constexpr unsigned char k_binint1 = 'K';
inline constexpr unsigned char k_binint2 = 'M';
inline constexpr unsigned char k_none = 'N';
inline constexpr unsigned char k_reduce = 'R';
inline constexpr unsigned char k_binunicode = 'X';
inline constexpr unsigned char k_binbytes = 'B';
inline constexpr unsigned char k_short_binbytes = 'C';
inline constexpr unsigned char k_build = 'b';
inline constexpr unsigned char k_empty_dict = '}';
inline constexpr unsigned char k_binget = 'h';
inline constexpr unsigned char k_long_binget = 'j';
inline constexpr unsigned char k_binput = 'q';
inline constexpr unsigned char k_long_binput = 'r';
inline constexpr unsigned char k_setitem = 's';
inline constexpr unsigned char k_setitems = 'u';
inline constexpr unsigned char k_empty_tuple = ')';
inline constexpr unsigned char k_proto = 0x80;
inline constexpr unsigned char k_newobj = 0x81;
inline constexpr unsigned char k_tuple1 = 0x85;
inline constexpr unsigned char k_tuple2 = 0x86;
inline constexpr unsigned char k_tuple3 = 0x87;
inline constexpr unsigned char k_newtrue = 0x88;
inline constexpr unsigned char k_newfalse = 0x89;
inline constexpr unsigned char k_long1 = 0x8a;
inline constexpr unsigned char k_short_binunicode = 0x8c;
inline constexpr unsigned char k_empty_set = 0x8f;
inline constexpr unsigned char k_additems = 0x90;
inline constexpr unsigned char k_stack_global = 0x93;
inline constexpr unsigned char k_memoize = 0x94;
inline constexpr unsigned char k_frame = 0x95;

/// The module of torch's rendezvous classes.
inline constexpr const char* k_rdzv_module =
    "torch.distributed.elastic.rendezvous.dynamic_rendezvous";

}  // namespace ejob::agent::pickle_op
