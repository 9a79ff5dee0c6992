// The service manifest (deploy/helm/platform/services.json): the apps `npm start` runs, their development ports
// and whom they serve. It sits inside the Helm chart so the chart's templates read the same file
// (`.Files.Get`); the boot test and the chart test read it too.
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib.mjs';

export const SERVICES_FILE = path.join(root, 'deploy', 'helm', 'platform', 'services.json');

/** @typedef {{ name: string, valuesKey: string, port: number, metricsPort: number, serves: 'public' | 'internal' | 'none' }} Service */

/** @type {Service[]} */
export const services = JSON.parse(fs.readFileSync(SERVICES_FILE, 'utf8'));
