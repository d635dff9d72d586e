import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { picture_paste } from './picture_paste.js';

let root: string;
let work: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lich-paste-'));
  work = join(root, 'work');
  await mkdir(join(work, 'shots'), { recursive: true });
  await writeFile(join(work, 'shots', 'my shot.png'), 'x');
  await writeFile(join(root, 'Desktop.jpg'), 'x');
  await writeFile(join(work, 'notes.txt'), 'x');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a pasted picture path', () => {
  it('becomes an @mention: relative inside the work dir, absolute outside', () => {
    const inside = join(work, 'shots', 'my shot.png');
    expect(picture_paste(inside, work)).toBe('@shots/my\\ shot.png ');
    expect(picture_paste(`'${inside}'`, work)).toBe('@shots/my\\ shot.png ');
    expect(picture_paste(inside.replaceAll(' ', '\\ '), work)).toBe('@shots/my\\ shot.png ');
    expect(picture_paste(pathToFileURL(inside).href, work)).toBe('@shots/my\\ shot.png ');
    expect(picture_paste(join(root, 'Desktop.jpg'), work)).toBe(`@${join(root, 'Desktop.jpg')} `);
  });

  it('leaves other pastes alone: text, a missing file, a file that is no picture', () => {
    expect(picture_paste('hello world', work)).toBeUndefined();
    expect(picture_paste(join(work, 'gone.png'), work)).toBeUndefined();
    expect(picture_paste(join(work, 'notes.txt'), work)).toBeUndefined();
    expect(picture_paste(`${join(work, 'shots', 'my shot.png')}\nmore`, work)).toBeUndefined();
  });
});
