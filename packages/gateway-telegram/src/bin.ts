#!/usr/bin/env node
import { run_platform_bin } from '@lich/gateway';
import { TELEGRAM_DEFINITION } from './telegram_platform.js';

run_platform_bin(TELEGRAM_DEFINITION);
