export * from './topics';
export * from './closed-lists';
export * from './snapshots';
export * from './envelope';
export * from './producer';
