import { describe, expect, it } from 'vitest';
import { ip_bytes, refused_range } from './ip_ranges.js';

describe('ip_bytes', () => {
  it('reads IPv4, IPv6, brackets, zones and dotted tails', () => {
    expect(ip_bytes('10.0.0.1')).toEqual([10, 0, 0, 1]);
    expect(ip_bytes('[::1]')).toEqual([...new Array(15).fill(0), 1]);
    expect(ip_bytes('fe80::1%eth0')?.slice(0, 2)).toEqual([0xfe, 0x80]);
    expect(ip_bytes('::ffff:127.0.0.1')?.slice(10)).toEqual([0xff, 0xff, 127, 0, 0, 1]);
    expect(ip_bytes('::ffff:7f00:1')?.slice(10)).toEqual([0xff, 0xff, 127, 0, 0, 1]);
    expect(ip_bytes('example.com')).toBeUndefined();
    expect(ip_bytes('0x7f.1')).toBeUndefined();
  });
});

describe('refused_range', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (127.0.0.0/8), written as IPv6'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['::7f00:1', 'IPv4-compatible'],
  ])('refuses %s (%s)', (address, name) => {
    expect(refused_range(address)).toContain(name);
  });

  it.each([
    '93.184.215.14',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('lets the public %s through', (address) => {
    expect(refused_range(address)).toBeUndefined();
  });

  it('refuses what is no address', () => {
    expect(refused_range('localhost')).toBe('not an IP address');
  });
});
