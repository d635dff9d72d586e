import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { find_aws_region } from './aws_region.js';
import { BEDROCK_KIND, read_bedrock_settings } from './bedrock_settings.js';

let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'lich-aws-region-'));
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function config_file(text: string): string {
  const file = join(home, 'config');
  writeFileSync(file, text);
  return file;
}

const FILE = `[default]
region = eu-central-1
output = json

[profile work]
region=ap-southeast-2
`;

describe('find_aws_region', () => {
  it('takes the environment first, then the profile of the config file, then us-east-1', () => {
    const file = config_file(FILE);
    expect(find_aws_region({ AWS_REGION: 'eu-west-1', AWS_CONFIG_FILE: file })).toEqual({
      region: 'eu-west-1',
      from: 'AWS_REGION',
    });
    expect(find_aws_region({ AWS_DEFAULT_REGION: 'eu-west-2', AWS_CONFIG_FILE: file }).region).toBe(
      'eu-west-2',
    );
    expect(find_aws_region({ AWS_CONFIG_FILE: file })).toEqual({
      region: 'eu-central-1',
      from: file,
    });
    expect(find_aws_region({ AWS_CONFIG_FILE: file, AWS_PROFILE: 'work' }).region).toBe(
      'ap-southeast-2',
    );
    expect(find_aws_region({ AWS_CONFIG_FILE: file, AWS_PROFILE: 'absent' }).region).toBe(
      'us-east-1',
    );
    // ~/.aws/config under HOME; none there
    expect(find_aws_region({ HOME: home })).toEqual({ region: 'us-east-1', from: 'default' });
  });

  it('sends the request to the config file region, and refuses one that is no region name', () => {
    const settings = read_bedrock_settings(
      { kind: BEDROCK_KIND, model: 'm' },
      { AWS_CONFIG_FILE: config_file(FILE) },
    );
    expect(settings.url).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/m/converse-stream',
    );
    const bad = config_file('[default]\nregion = evil.example#\n');
    expect(() =>
      read_bedrock_settings({ kind: BEDROCK_KIND, model: 'm' }, { AWS_CONFIG_FILE: bad }),
    ).toThrow(`the region from ${bad} must be a region name`);
  });
});
