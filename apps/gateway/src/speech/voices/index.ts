export { voicesRoutes, type VoicesDeps } from './voices-routes';
export { UPLOAD_LIMITS } from './upload-limits';
