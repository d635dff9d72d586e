import { describe, expect, it } from 'vitest';
import { check_hardline } from './hardline.js';

const HOME = '/home/ada';
const rule_of = (command: string) => check_hardline(command, { home: HOME })?.rule;

describe('check_hardline refuses', () => {
  it.each([
    'rm -rf /',
    'rm -fr /',
    'rm -Rf /',
    'rm -r -f /',
    'rm -f -r /*',
    'rm --recursive --force /',
    'rm --rec --force /',
    'rm -rvf /',
    'rm -rf -- /',
    'rm -rf / --no-preserve-root',
    'rm --no-preserve-root -rf /',
    'rm -r /',
    'rm -rf //',
    'rm -rf /.',
    'rm -rf /./',
    'rm -rf /tmp/..',
    'rm -rf /*',
    'rm -rf "/"',
    "rm -rf '/'",
    'rm -rf ~',
    'rm -rf ~/',
    'rm -rf ~/*',
    'rm -rf ~/.*',
    'rm -rf ~/..',
    'rm -rf $HOME',
    'rm -rf "$HOME"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
    'rm -rf ${HOME}',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
    'rm -rf "${HOME}/"',
    'rm -rf $HOME/*',
    'rm -rf /home/ada',
    'rm -rf /home/ada/',
    'rm -rf /home/ada/*',
    'rm -rf /home',
    'sudo rm -rf /',
    'sudo -u root rm -rf /',
    'sudo -E rm -rf ~',
    'doas rm -rf /',
    'env FOO=1 rm -rf /',
    'FOO=1 rm -rf /',
    'nice -n 5 rm -rf /',
    'timeout 10 rm -rf /',
    'nohup rm -rf / &',
    '/bin/rm -rf /',
    '\\rm -rf /',
    '"rm" -rf /',
    'r""m -rf /',
    'command rm -rf /',
    'echo ok; rm -rf /',
    'echo ok && rm -rf ~',
    'false || rm -rf /',
    'cd /tmp\nrm -rf /',
    'if true; then rm -rf /; fi',
    '(rm -rf /)',
    '{ rm -rf /; }',
    'echo $(rm -rf /)',
    'echo "$(rm -rf ~)"',
    'echo `rm -rf /`',
    'cat <(rm -rf /)',
    'bash -c "rm -rf /"',
    "sh -c 'rm -rf ~'",
    'bash -lc "sudo rm -rf /"',
    'eval "rm -rf /"',
    'bash -c "bash -c \'rm -rf /\'"',
    'echo / | xargs rm -rf /',
  ])('rm: %s', (command) => {
    expect(rule_of(command)).toBe('rm_root');
  });

  it.each([
    'mkfs /dev/sda1',
    'mkfs.ext4 /dev/sdb',
    'sudo mkfs.xfs -f /dev/nvme0n1p1',
    '/sbin/mkfs.vfat disk.img',
    'mke2fs /dev/sdc',
    'echo x && mkfs.btrfs /dev/vdb',
  ])('mkfs: %s', (command) => {
    expect(rule_of(command)).toBe('mkfs');
  });

  it.each([
    'dd if=/dev/zero of=/dev/sda',
    'dd if=/dev/zero of=/dev/sda bs=1M',
    'sudo dd if=image.iso of=/dev/sdb status=progress',
    'dd of=/dev/nvme0n1 if=/dev/urandom',
    'dd if=x of=/dev/mmcblk0',
    'dd if=x of=//dev//sda',
    'dd if=x of="/dev/vda"',
    'dd if=x of=/dev/disk/by-id/usb-stick',
    'echo hi > /dev/sda',
    'cat image >> /dev/sdb1',
    'cat image 1>/dev/nvme0n1',
    'cat image &> /dev/sda',
    'cat image >| /dev/xvda',
    'cat image | sudo tee /dev/sda',
    'shred /dev/sda',
    'wipefs -a /dev/sdb',
    'exec 3> /dev/sda',
  ])('block device: %s', (command) => {
    expect(rule_of(command)).toBe('block_device');
  });

  it.each([
    ':(){ :|:& };:',
    ':() { : | : & }; :',
    'bomb(){ bomb|bomb& };bomb',
    'f() { f | f & }; f',
    'function f { f | f & }; f',
    'function boom() { boom & boom & }; boom',
    'x(){ x|x & }\nx',
    'bash -c ":(){ :|:& };:"',
  ])('fork bomb: %s', (command) => {
    expect(rule_of(command)).toBe('fork_bomb');
  });

  it('says why in a message the model can act on', () => {
    const found = check_hardline('rm -rf /', { home: HOME });
    expect(found?.message).toMatch(/^Refused by the hardline: a recursive rm of `\/`/);
    expect(found?.message).toMatch(/whole file system/);
    expect(found?.message).toMatch(/not run/);
    expect(check_hardline('rm -rf $HOME', { home: HOME })?.message).toMatch(/home directory/);
    expect(check_hardline('dd if=x of=/dev/sda', { home: HOME })?.message).toMatch(/\/dev\/sda/);
  });

  it('refuses shells nested beyond what it checks', () => {
    let command = 'echo hi';
    for (let i = 0; i < 8; i++) command = `bash -c ${JSON.stringify(command)}`;
    expect(rule_of(command)).toBe('too_nested');
  });
});

describe('check_hardline lets through', () => {
  it.each([
    'echo "rm -rf /"',
    "echo 'rm -rf /'",
    'echo rm -rf /',
    'printf "%s\\n" "rm -rf ~"',
    'git commit -m "rm -rf / is refused"',
    "grep -r 'rm -rf /' .",
    'rm -rf ./build',
    'rm -rf build dist node_modules',
    'rm -rf /tmp/lich-test',
    'rm -rf ~/project/build',
    'rm -rf "$HOME/.cache/lich"',
    'rm -rf $TMPDIR/*',
    'rm -f /tmp/file',
    'rm /tmp/a /tmp/b',
    "rm -rf '~'",
    "rm -rf '$HOME'",
    'rm -rf \\~',
    'rm -rf /home/adam',
    'ls -la /',
    'cd / && ls',
    'find / -name x',
    'cat /dev/sda | head -c 512 | xxd',
    'dd if=/dev/sda of=mbr.bin bs=512 count=1',
    'dd if=/dev/zero of=/tmp/blob bs=1M count=1',
    'echo hi > /dev/null',
    'echo hi 2>/dev/stderr >/dev/stdout',
    'ls 2>&1',
    'echo mkfs is dangerous',
    'man mkfs',
    'cat <<EOF\nrm -rf /\nmkfs /dev/sda\nEOF',
    "cat <<'EOF' > notes.md\n:(){ :|:& };:\nEOF\necho done",
    'echo ":(){ :|:& };:"',
    'fib() { fib 1; fib 2; }; fib',
    'f() { echo hi | cat; }; f',
    'retry() { "$@" || retry "$@"; }',
    'npm test # rm -rf /',
    'echo $(( 1 + 2 ))',
    'node -e "console.log(1)"',
  ])('%s', (command) => {
    expect(check_hardline(command, { home: HOME })).toBeUndefined();
  });
});
