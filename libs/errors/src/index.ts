export * from './speech';
export * from './http-status';
export * from './oauth';
export * from './graphql';
