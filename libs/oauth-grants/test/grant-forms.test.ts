import { GRANT_FORMS, GRANT_TYPES, requiredParameters } from '@platform/oauth-grants';

describe('the grant forms', () => {
  it('are one per grant type, each with its own schema name', () => {
    expect(GRANT_TYPES).toEqual(GRANT_FORMS.map((form) => form.type));
    expect(new Set(GRANT_TYPES).size).toBe(GRANT_FORMS.length);
    expect(new Set(GRANT_FORMS.map((form) => form.schemaName)).size).toBe(GRANT_FORMS.length);
  });

  it('require only parameters they describe, never grant_type or client authentication', () => {
    for (const form of GRANT_FORMS) {
      for (const name of requiredParameters(form.parameters)) expect(Object.keys(form.parameters)).toContain(name);
      expect(Object.keys(form.parameters)).not.toEqual(expect.arrayContaining(['grant_type']));
      expect(Object.keys(form.parameters).filter((name) => name.startsWith('client_'))).toEqual([]);
    }
  });
});
