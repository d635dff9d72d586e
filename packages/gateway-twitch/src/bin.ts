#!/usr/bin/env node
import { run_platform_bin } from '@lich/gateway';
import { TWITCH_DEFINITION } from './twitch_platform.js';

run_platform_bin(TWITCH_DEFINITION);
