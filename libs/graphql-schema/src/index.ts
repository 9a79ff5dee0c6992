export { typeDefs } from './sdl';
export { toGlobalId, fromGlobalId, type NodeType } from './global-id';
export { FIELD_COST, QUERY_SHAPE_LIMITS, measureQuery, queryLimitError, type QueryMeasure } from './query-cost';
export { GRAPHQL_REQUEST_MEDIA_TYPE, graphqlBodyMediaTypeProblem } from './request-media-type';
export {
  SUBSCRIPTION_FIELDS,
  subscriptionField,
  subscriptionFieldOfEvent,
  type SubscriptionField,
} from './subscription-fields';
