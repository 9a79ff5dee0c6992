export { userRoutes } from './user-routes';
export { callerOf, handle, accountErrors, type Caller } from './account';
export { createAccountSpeech, type AccountSpeech, type AccountSpeechOptions } from './account-speech';
