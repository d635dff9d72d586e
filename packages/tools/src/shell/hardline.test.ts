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
    // input piped into xargs is read when it is a literal echo or printf
    'echo / | xargs rm -rf',
    "printf '/\\n' | xargs -I{} rm -rf {}",
    'printf "%s\\n" / | xargs rm -rf',
    'echo ~ | xargs -0 rm -rf',
    // a command word only known when it runs, with arguments that make it a recursive rm of /
    '$(echo rm) -rf /',
    '`echo rm` -rf /',
    '"$(which rm)" -rf /',
    '$RM -rf /',
    // variables set earlier on the line
    'x=/; rm -rf $x',
    'x=/; rm -rf "$x"',
    'x=/ && rm -rf $x/*',
    'export x=/; rm -rf $x',
    'a=/; b=$a; rm -rf "$b"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
    'target=~; rm -rf ${target}',
    'x=rm; $x -rf /',
    'for d in build /; do rm -rf "$d"; done',
    // a folder changed to, then a wildcard or a climb
    'cd / && rm -rf *',
    'cd /; rm -rf *',
    'cd / || exit; rm -rf .*',
    '(cd / && rm -rf ./*)',
    'cd && rm -rf *',
    'cd ~ && rm -rf .',
    'cd /tmp && rm -rf ..',
    'cd /usr && cd .. && rm -rf *',
    'pushd / && rm -rf *',
    'cd / && find . -delete',
    // find running rm on its own starting point
    'find / -maxdepth 0 -exec rm -rf {} \\;',
    'find / -exec rm -rf {} +',
    'find ~ -maxdepth 0 -execdir rm -r {} ;',
    'find / -delete',
    // X8: the spellings bash runs that the check missed
    "$'\\x72\\x6d' -rf /",
    "$'\\162\\155' -rf ~",
    'rm -rf {/,}',
    'rm -rf /{,}',
    'rm -rf {/tmp/x,/}',
    '/bin/{rm,true} -rf /',
    "bash <<< 'rm -rf /'",
    "sh -s <<< 'rm -rf /'",
    "echo 'rm -rf /' | sh",
    "printf 'rm -rf /\\n' | bash",
    "echo -e 'rm -rf /' | bash -o pipefail",
    "cat <<'EOF' | sh\nrm -rf /\nEOF",
    'bash <<EOF\nrm -rf ~\nEOF',
    'IFS=,; c=rm,-rf,/; $c',
    'c="rm -rf /"; $c',
    'set -- /; rm -rf "$@"',
    'f() { rm -rf "$1"; }; f /',
    'function wipe { rm -rf "$@"; }; wipe ~',
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
    '$(echo mkfs) /dev/sda1',
    'm=mkfs.ext4; $m /dev/sdb',
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
    '$(echo dd) if=/dev/zero of=/dev/sda',
    '`echo dd` of=/dev/nvme0n1',
    'd=/dev/sda; dd if=/dev/zero of=$d',
    'echo /dev/sda | xargs -I{} dd if=/dev/zero of={}',
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

  it('resolves relative paths against the work dir it is given', () => {
    const in_work = (command: string) =>
      check_hardline(command, { home: HOME, cwd: '/home/ada/project' })?.rule;
    expect(in_work('rm -rf ../../..')).toBe('rm_root');
    expect(in_work('rm -rf ..')).toBe('rm_root'); // the home directory
    expect(in_work('cd .. && rm -rf *')).toBe('rm_root');
    expect(in_work('rm -rf ../other')).toBeUndefined();
    expect(in_work('rm -rf *')).toBeUndefined();
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
    'find . -name node_modules | xargs rm -rf',
    'echo build dist | xargs rm -rf',
    "printf 'build\\n' | xargs -I{} rm -rf {}",
    'find ~ -type d -name __pycache__ -exec rm -rf {} +',
    'find / -name "*.pyc" -delete',
    'find /tmp/x -maxdepth 0 -exec rm -rf {} \\;',
    'x=build; rm -rf $x',
    'x=/; rm -rf $x/build',
    'rm -rf $unset_variable',
    '$CC -o main main.c',
    '$(which node) script.js /',
    '"$EDITOR" /etc/hosts',
    'cd /tmp && rm -rf build',
    'cd / && ls *',
    'cd /tmp/project && rm -rf *',
    'cd $dir && rm -rf *',
    'cd build && rm -rf *',
    'x=/ rm -rf $x',
    // quoted, or nothing bash would run
    'echo {a,b}',
    "git log --format='%h {x,y}'",
    'rm -rf "{/,}"',
    'rm -f {a,b}.txt',
    'c=\'rm -rf /\'; "$c"',
    "echo 'rm -rf /' | cat",
    "bash script.sh <<< 'rm -rf /'",
    'IFS=, ; c=a,b; echo $c',
    'retry() { "$@" || retry "$@"; }; retry make',
  ])('%s', (command) => {
    expect(check_hardline(command, { home: HOME })).toBeUndefined();
  });
});
