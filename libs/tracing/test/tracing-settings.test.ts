import { tracingSettings } from '../src/tracing-settings';

describe('tracingSettings: the OTEL_* variables that turn tracing on', () => {
  it('is off by default, and when nothing says where spans go', () => {
    expect(tracingSettings({})).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'gateway', OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ enabled: false });
  });

  it('is on with an OTLP endpoint (all signals or traces only)', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      enabled: true,
      exporter: 'otlp',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_TRACES_EXPORTER: 'otlp',
      }),
    ).toEqual({ enabled: true, exporter: 'otlp' });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toEqual({ enabled: true, exporter: 'otlp' });
  });

  it('is on with the console exporter', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'console' })).toEqual({ enabled: true, exporter: 'console' });
  });

  it('is off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever else is set', () => {
    expect(
      tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'console' })).toEqual({ enabled: false });
    expect(
      tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual({ enabled: false });
    expect(
      tracingSettings({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual({ enabled: true, exporter: 'otlp' });
  });

  it('refuses exporters and protocols the platform does not ship, naming the variable', () => {
    expect(() => tracingSettings({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      /OTEL_TRACES_EXPORTER=zipkin is not supported/,
    );
    expect(() =>
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc/);
    expect(() =>
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http\/protobuf/);
  });
});
