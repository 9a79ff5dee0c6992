export * from './speech';
export * from './content-rest';
export * from './oauth';
export * from './graphql';
