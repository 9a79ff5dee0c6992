// Four projects: `unit` (no I/O, fakes allowed), `integration` (real Redis, Kafka and MongoDB from
// the local stack), `e2e` (the built apps started as processes), and `alone`: e2e tests that assert a
// latency bound, which `npm test` runs by themselves after the others (scripts/test.mjs).
// Tests are TypeScript run through swc; `@platform/*` resolves to library sources so tests never
// depend on a stale build, and `@platform/testing` to the test harness in tests/support (plain files
// of the tests workspace, not a package). ESM-only client libraries are transformed to CommonJS for jest.
const esmOnly = [
  'jose',
  'openid-client',
  'openid-client-6',
  'oauth4webapi',
  'graphql-ws',
  '@elevenlabs',
  'uuid',
  'nanoid',
];

const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  },
];

const shared = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  // First match wins: the harness before the libraries.
  moduleNameMapper: {
    '^@platform/testing$': '<rootDir>/tests/support',
    '^@platform/([a-z-]+)$': '<rootDir>/libs/$1/src',
  },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.stack/', '<rootDir>/apps/.*/dist/', '<rootDir>/libs/.*/dist/'],
};

const ignore = ['/node_modules/', '/dist/', '/.stack/'];

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  globalSetup: '<rootDir>/infra/testcontainers/global-setup.ts',
  globalTeardown: '<rootDir>/infra/testcontainers/global-teardown.ts',
  // The slowest files first, by recorded durations (tests/support/sequencer.cjs).
  testSequencer: '<rootDir>/tests/support/sequencer.cjs',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.test.ts'],
      testPathIgnorePatterns: [...ignore, '\\.int\\.test\\.ts$', '\\.e2e\\.test\\.ts$', '\\.alone\\.test\\.ts$'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/**/*.e2e.test.ts'],
      testPathIgnorePatterns: ignore,
    },
    {
      ...shared,
      displayName: 'alone',
      testMatch: ['<rootDir>/**/*.alone.test.ts'],
      testPathIgnorePatterns: ignore,
    },
  ],
};
