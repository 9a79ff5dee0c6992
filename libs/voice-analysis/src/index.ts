export * from './engine-params';
