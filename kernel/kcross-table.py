#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kcross-table.py - what a built vmlinux's system call table holds.

    kcross-table.py VMLINUX TABLE NR=SYMBOL...

Reads TABLE (a symbol, e.g. sys_call_table) out of the ELF image, not out
of the sources (applying the image's RELATIVE relocations where it is
relocatable, as arm64's is), and checks that entry NR points at SYMBOL for every
NR=SYMBOL given. Prints one line: the entries asked for, the length of the
table, how many of its entries are sys_ni_syscall and how many of those
lie right below the lowest NR (the padding the numbers cost); exits 1 on
a mismatch. Any little-endian ELF, 32 or 64 bits (kernel/kcross.sh).
"""
import struct
import sys


def elf_read(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[5] != 1:
        sys.exit(f'{path}: not a little-endian ELF file')
    is64 = data[4] == 2
    if is64:
        shoff, = struct.unpack_from('<Q', data, 0x28)
        shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
    else:
        shoff, = struct.unpack_from('<I', data, 0x20)
        shentsize, shnum = struct.unpack_from('<HH', data, 0x2e)
    sections = []
    for i in range(shnum):
        off = shoff + i * shentsize
        if is64:
            (_, stype, _, addr, offset, size, link, _, _,
             entsize) = struct.unpack_from('<IIQQQQIIQQ', data, off)
        else:
            (_, stype, _, addr, offset, size, link, _, _,
             entsize) = struct.unpack_from('<IIIIIIIIII', data, off)
        sections.append((stype, addr, offset, size, link, entsize))
    return data, is64, sections


def symbols(data, is64, sections):
    """name -> (value, size), and value -> [names] for functions."""
    by_name, by_addr = {}, {}
    for stype, _, offset, size, link, entsize in sections:
        if stype != 2:  # SHT_SYMTAB
            continue
        stroff = sections[link][2]
        for off in range(offset, offset + size, entsize):
            if is64:
                name, info, _, _, value, ssize = struct.unpack_from(
                    '<IBBHQQ', data, off)
            else:
                name, value, ssize, info, _, _ = struct.unpack_from(
                    '<IIIBBH', data, off)
            end = data.index(b'\0', stroff + name)
            sym = data[stroff + name:end].decode()
            by_name.setdefault(sym, (value, ssize))
            if info & 0xf == 2:  # STT_FUNC
                by_addr.setdefault(value, []).append(sym)
    return by_name, by_addr


def relocations(data, is64, sections):
    """vaddr -> addend of the image's RELATIVE relocations (a relocatable
    arm64 vmlinux holds 0 where a table entry is, until it is applied)."""
    relative = {1027, 3, 8}  # R_AARCH64_, R_RISCV_, R_X86_64_RELATIVE
    relocs = {}
    for stype, _, offset, size, _, entsize in sections:
        if stype != 4 or not is64:  # SHT_RELA; 64-bit images only
            continue
        for off in range(offset, offset + size, entsize):
            where, info, addend = struct.unpack_from('<QQq', data, off)
            if info & 0xffffffff in relative:
                relocs[where] = addend & (2 ** 64 - 1)
    return relocs


def read_at(data, sections, addr, size):
    for stype, saddr, offset, ssize, _, _ in sections:
        if stype == 1 and saddr <= addr and addr + size <= saddr + ssize:
            return data[offset + addr - saddr:offset + addr - saddr + size]
    sys.exit(f'address {addr:#x} is in no section with contents')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    data, is64, sections = elf_read(sys.argv[1])
    by_name, by_addr = symbols(data, is64, sections)
    table = sys.argv[2]
    if table not in by_name:
        sys.exit(f'no symbol {table}')
    base, size = by_name[table]
    ptr = 8 if is64 else 4
    raw = read_at(data, sections, base, size)
    entries = struct.unpack(f'<{size // ptr}{"Q" if is64 else "I"}', raw)
    relocs = relocations(data, is64, sections)
    entries = [relocs.get(base + i * ptr, e) if not e else e
               for i, e in enumerate(entries)]
    names = [by_addr.get(e, [f'{e:#x}']) for e in entries]
    def is_ni(nr):
        return any(s.endswith('sys_ni_syscall') for s in names[nr])
    ni = sum(1 for nr in range(len(names)) if is_ni(nr))
    good, said = True, []
    for arg in sys.argv[3:]:
        nr, want = arg.split('=')
        nr = int(nr)
        got = names[nr] if nr < len(names) else ['(past the end)']
        said.append(f'[{nr}] {"/".join(got)}')
        good = good and want in got
    nrs = [int(arg.split('=')[0]) for arg in sys.argv[3:]]
    gap = min(nrs)
    while gap > 0 and gap - 1 < len(names) and is_ni(gap - 1):
        gap -= 1
    print(f'{", ".join(said)}; {len(entries)} entries, {ni} sys_ni_syscall, '
          f'{min(nrs) - gap} of them right below [{min(nrs)}]')
    return 0 if good else 1


if __name__ == '__main__':
    sys.exit(main())
