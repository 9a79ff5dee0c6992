export * from './speech';
export * from './http-status';
export * from './graphql';
