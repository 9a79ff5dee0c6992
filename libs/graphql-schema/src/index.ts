export { typeDefs } from './sdl';
export { toGlobalId, fromGlobalId, type NodeType } from './global-id';
