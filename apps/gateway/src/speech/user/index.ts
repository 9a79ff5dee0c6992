export { userRoutes } from './user-routes';
export { callerOf, handle, accountErrors, type Caller } from './account';
