#!/usr/bin/env node
import { run_platform_bin } from '@lich/gateway';
import { DISCORD_DEFINITION } from './discord_platform.js';

run_platform_bin(DISCORD_DEFINITION);
