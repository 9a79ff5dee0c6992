export * from './grant-form';
export * from './grant-forms';
