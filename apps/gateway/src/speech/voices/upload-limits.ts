/** Bounds of a voice upload, declared with its form contract; every one is enforced while the request streams in. */
export { VOICE_UPLOAD_LIMITS as UPLOAD_LIMITS } from '@platform/contracts';
