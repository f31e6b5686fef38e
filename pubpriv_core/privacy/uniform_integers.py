"""Uniform integers in [0, n): the numbers ``Generator.integers(n, size=k)`` draws, from one
compiled call.

numpy draws a bounded integer below 2^32 by Lemire's multiply-and-reject method on the bit
generator's 32-bit outputs (Lemire 2019, "Fast Random Integer Generation in an Interval";
numpy's ``buffered_bounded_lemire_uint32``): m = x·n for a 32-bit x, rejected while its low
32 bits fall below (2^32 − n) mod n, result m >> 32. The compiled loop below does exactly that,
calling the generator's own ``next_uint32`` through its documented ctypes interface
(``BitGenerator.ctypes``) under the generator's lock, so it returns the same numbers and leaves
the same state as numpy (tests compare both), without numpy's ≈ 10 µs of per-call argument
handling. Other bit generators and ranges outside [2, 2^32) go through ``Generator.integers``.
"""
from __future__ import annotations

import ctypes

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

#: address of PCG64's ``next_uint32`` C function (one function for every PCG64 instance)
_PCG64_NEXT_UINT32 = ctypes.cast(np.random.PCG64(0).ctypes.next_uint32, ctypes.c_void_p).value
_LOW32 = 0xFFFFFFFF


def uniform_integers(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``rng.integers(n, size=size)``: the same int64 numbers, the same generator state after."""
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64 or not 2 <= n <= _LOW32:
        return rng.integers(n, size=size)
    out = np.empty(size, dtype=np.int64)
    with bits.lock:
        _lemire_fill(_PCG64_NEXT_UINT32, bits.ctypes.state_address, n, out)
    return out


@intrinsic
def _call_next_uint32(typingctx, function, state):
    """Call the C function ``uint32_t function(void *state)`` given both addresses."""
    def codegen(context, builder, signature, args):
        pointer = ir.IntType(8).as_pointer()
        callee = builder.inttoptr(args[0], ir.FunctionType(ir.IntType(32), [pointer])
                                  .as_pointer())
        return builder.call(callee, [builder.inttoptr(args[1], pointer)])
    return types.uint32(types.uintp, types.uintp), codegen


@nb.njit(nogil=True, cache=True)
def _lemire_fill(function, state, n, out):
    """out[i] = the bounded draw below n of Lemire's method on 32-bit outputs (numpy's order)."""
    bound = np.uint64(n)
    low32 = np.uint64(_LOW32)
    for i in range(out.size):
        m = np.uint64(_call_next_uint32(function, state)) * bound
        if (m & low32) < bound:
            threshold = (low32 - (bound - np.uint64(1))) % bound
            while (m & low32) < threshold:
                m = np.uint64(_call_next_uint32(function, state)) * bound
        out[i] = np.int64(m >> np.uint64(32))
