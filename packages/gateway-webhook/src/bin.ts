#!/usr/bin/env node
import { run_platform_bin } from '@lich/gateway';
import { WEBHOOK_DEFINITION } from './webhook_platform.js';

run_platform_bin(WEBHOOK_DEFINITION);
