export * from './topics';
export * from './snapshots';
export * from './envelope';
export * from './producer';
