import { graphqlBodyMediaTypeProblem } from '../src';

describe('the one body encoding of GraphQL over HTTP: UTF-8 JSON', () => {
  it('accepts application/json, with charset utf-8 or none', () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON;charset="UTF-8"',
      'application/json;',
      'application/json; charset=utf-8; profile=x',
    ]) {
      expect({ type, problem: graphqlBodyMediaTypeProblem(type) }).toEqual({ type, problem: null });
    }
  });

  it('refuses every other charset, other media types, no Content-Type, and parameters it cannot read', () => {
    for (const type of [
      undefined,
      '',
      'text/plain',
      'application/graphql',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16le',
      'application/json; charset=utf-16',
      'application/json; charset=utf8',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-8; charset=utf-16le',
      'application/json; charset="utf-8;x"',
      'application/json; charset',
      'application/json; charset=',
    ]) {
      expect({ type, problem: graphqlBodyMediaTypeProblem(type) }).toEqual({
        type,
        problem: expect.stringContaining('application/json'),
      });
    }
  });
});
