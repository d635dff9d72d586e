/**
 * The seccomp filter bubblewrap loads into every sandboxed command (`--seccomp <fd>`): a classic
 * BPF program, written here as bytes, so no native build step and no libseccomp is needed.
 *
 * What it refuses, and why:
 * - `socket(AF_UNIX, …)`: a new network namespace does not cover unix sockets that live in the
 *   file system (PostgreSQL's, MariaDB's, docker's, an ssh agent's). A command that cannot make a
 *   unix socket can reach none of them, whatever path or link it names. The answer is
 *   `EAFNOSUPPORT` ("Address family not supported by protocol"), which programs already handle
 *   as "no unix sockets here". `socketpair` stays allowed: a pair reaches nothing outside it.
 * - `io_uring_setup`: io_uring can open sockets without the `socket` system call (`ENOSYS`, as a
 *   kernel without io_uring answers; libuv and others fall back to plain calls).
 * - On x86-64, the same through the 32-bit and x32 entries (`socketcall(SYS_SOCKET)` cannot show
 *   its family, so it is refused whole); any other architecture's calls get `ENOSYS`.
 */

/** `struct seccomp_data` offsets: the call number, the architecture, the first argument's low word. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff_0000;
const RET_ERRNO = 0x0005_0000;
const EAFNOSUPPORT = 97;
const ENOSYS = 38;
const AF_UNIX = 1;
const SYS_SOCKET = 1;
const X32_BIT = 0x4000_0000;
const IO_URING_SETUP = 425;

/** One architecture's numbers. */
interface ArchTable {
  /** `AUDIT_ARCH_*`. */
  audit: number;
  socket: number;
  /** `socketcall`, where the architecture has it. */
  socketcall?: number;
  /** Calls of this ABI carry this bit in their number (x32). */
  x32?: boolean;
}

const X86_64: ArchTable = { audit: 0xc000_003e, socket: 41 };
const I386: ArchTable = { audit: 0x4000_0003, socket: 359, socketcall: 102 };
const AARCH64: ArchTable = { audit: 0xc000_00b7, socket: 198 };
const ARM: ArchTable = { audit: 0x4000_0028, socket: 281 };
const RISCV64: ArchTable = { audit: 0xc000_00f3, socket: 198 };

/** The ABIs a kernel of each Node architecture runs: the native one first. */
const ABIS: Partial<Record<NodeJS.Architecture, readonly ArchTable[]>> = {
  x64: [X86_64, I386],
  arm64: [AARCH64, ARM],
  riscv64: [RISCV64],
};

type Instruction = { code: number; jt: number | string; jf: number | string; k: number };

/** A tiny assembler: jumps name labels; `resolve` turns them into forward offsets. */
class Program {
  readonly #lines: (Instruction | { label: string })[] = [];

  load(offset: number): void {
    this.#lines.push({ code: LD_W_ABS, jt: 0, jf: 0, k: offset });
  }

  /** if A == k goto `yes` else goto `no` (a label, or 0 for the next instruction). */
  jeq(k: number, yes: number | string, no: number | string = 0): void {
    this.#lines.push({ code: JEQ_K, jt: yes, jf: no, k });
  }

  ret(k: number): void {
    this.#lines.push({ code: RET_K, jt: 0, jf: 0, k });
  }

  label(name: string): void {
    this.#lines.push({ label: name });
  }

  bytes(): Buffer {
    const at = new Map<string, number>();
    const instructions: Instruction[] = [];
    for (const line of this.#lines) {
      if ('label' in line) at.set(line.label, instructions.length);
      else instructions.push(line);
    }
    const out = Buffer.alloc(instructions.length * 8);
    instructions.forEach((instruction, index) => {
      const offset = (target: number | string): number => {
        if (typeof target === 'number') return target;
        const to = at.get(target);
        if (to === undefined) throw new Error(`seccomp: no label ${target}`);
        const jump = to - index - 1;
        if (jump < 0 || jump > 255) throw new Error(`seccomp: jump to ${target} out of range`);
        return jump;
      };
      // `struct sock_filter` in the machine's byte order: every architecture above is little-endian
      out.writeUInt16LE(instruction.code, index * 8);
      out.writeUInt8(offset(instruction.jt), index * 8 + 2);
      out.writeUInt8(offset(instruction.jf), index * 8 + 3);
      out.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
    });
    return out;
  }
}

function emit_abi(program: Program, abi: ArchTable, name: string): void {
  program.label(name);
  program.load(NR);
  program.jeq(abi.socket, 'family');
  program.jeq(IO_URING_SETUP, 'no_call');
  if (abi.socketcall !== undefined) program.jeq(abi.socketcall, `${name}_socketcall`);
  if (abi === X86_64) {
    // x32 calls are the x86-64 numbers with bit 30 set, under the same AUDIT_ARCH
    program.jeq(X32_BIT | abi.socket, 'family');
    program.jeq(X32_BIT | IO_URING_SETUP, 'no_call');
  }
  program.ret(RET_ALLOW);
  if (abi.socketcall !== undefined) {
    program.label(`${name}_socketcall`);
    program.load(ARG0);
    program.jeq(SYS_SOCKET, 'no_family', 'allow');
  }
}

/**
 * The filter for this machine's architecture, as bytes for `bwrap --seccomp`, or `undefined` on
 * an architecture it does not know (then unix sockets are masked instead, see `unix_socket_masks`).
 *
 * Contract: pure; the same bytes every call for one architecture.
 */
export function unix_socket_filter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const abis = ABIS[arch];
  if (abis === undefined || process_endianness() !== 'LE') return undefined;
  const program = new Program();
  program.load(ARCH);
  abis.forEach((abi, index) => {
    program.jeq(abi.audit, `abi${index}`);
  });
  program.ret(RET_ERRNO | ENOSYS);
  abis.forEach((abi, index) => {
    emit_abi(program, abi, `abi${index}`);
  });
  program.label('family');
  program.load(ARG0);
  program.jeq(AF_UNIX, 'no_family', 'allow');
  program.label('no_family');
  program.ret(RET_ERRNO | EAFNOSUPPORT);
  program.label('no_call');
  program.ret(RET_ERRNO | ENOSYS);
  program.label('allow');
  program.ret(RET_ALLOW);
  return program.bytes();
}

function process_endianness(): 'LE' | 'BE' {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'LE' : 'BE';
}
