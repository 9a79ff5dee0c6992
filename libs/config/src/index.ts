export { loadConfig, ConfigError } from './load-config';
export * as env from './fields';
