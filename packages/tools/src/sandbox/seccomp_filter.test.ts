import { describe, expect, it } from 'vitest';
import { unix_socket_filter } from './seccomp_filter.js';

type Data = { nr: number; arch: number; arg0?: number };

/** Runs a classic BPF program over one `seccomp_data`: the little interpreter the kernel is. */
function run(program: Buffer, data: Data): number {
  let accumulator = 0;
  let pc = 0;
  const word = (offset: number) =>
    offset === 0 ? data.nr : offset === 4 ? data.arch : offset === 16 ? (data.arg0 ?? 0) : 0;
  for (;;) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) accumulator = word(k) >>> 0;
    else if (code === 0x15) {
      pc += accumulator === k ? jt : jf;
    } else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code}`);
    pc += 1;
  }
}

const ALLOW = 0x7fff_0000;
const EAFNOSUPPORT = 0x0005_0000 | 97;
const ENOSYS = 0x0005_0000 | 38;
const X86_64 = 0xc000_003e;
const I386 = 0x4000_0003;
const AARCH64 = 0xc000_00b7;

describe('unix_socket_filter', () => {
  it('refuses socket(AF_UNIX) on x86-64, x32 and i386, and allows other families', () => {
    const program = unix_socket_filter('x64')!;
    expect(run(program, { arch: X86_64, nr: 41, arg0: 1 })).toBe(EAFNOSUPPORT);
    expect(run(program, { arch: X86_64, nr: 41, arg0: 2 })).toBe(ALLOW);
    expect(run(program, { arch: X86_64, nr: 0x4000_0000 | 41, arg0: 1 })).toBe(EAFNOSUPPORT);
    expect(run(program, { arch: I386, nr: 359, arg0: 1 })).toBe(EAFNOSUPPORT);
    // socketcall(SYS_SOCKET, …) hides its family: refused whole; other socketcalls pass
    expect(run(program, { arch: I386, nr: 102, arg0: 1 })).toBe(EAFNOSUPPORT);
    expect(run(program, { arch: I386, nr: 102, arg0: 3 })).toBe(ALLOW);
  });

  it('allows socketpair and ordinary calls, refuses io_uring and unknown architectures', () => {
    const program = unix_socket_filter('x64')!;
    expect(run(program, { arch: X86_64, nr: 53, arg0: 1 })).toBe(ALLOW); // socketpair
    expect(run(program, { arch: X86_64, nr: 0 })).toBe(ALLOW); // read
    expect(run(program, { arch: X86_64, nr: 425 })).toBe(ENOSYS);
    expect(run(program, { arch: 0x1234, nr: 41, arg0: 2 })).toBe(ENOSYS);
  });

  it('knows arm64, and gives no filter where it does not know the numbers', () => {
    const program = unix_socket_filter('arm64')!;
    expect(run(program, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(EAFNOSUPPORT);
    expect(run(program, { arch: AARCH64, nr: 198, arg0: 10 })).toBe(ALLOW);
    expect(unix_socket_filter('s390x')).toBeUndefined();
  });
});
