/** The environment settings: defaults of the local stack, and errors that name the variable. */
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_DOC, logLevelFrom, parseConfig } from '../../domain/config/env.js';

describe('environment configuration', () => {
  it('defaults to the local stack; an empty variable counts as unset', () => {
    const config = parseConfig({ TEMPORAL_ADDRESS: '', EXPLORA_S3_BUCKET: '' });
    expect(config.temporal.address).toBe('127.0.0.1:7233');
    expect(config.s3).toMatchObject({ endpoint: 'http://127.0.0.1:8333', bucket: 'explora', forcePathStyle: true });
    expect(config.taskQueues).toEqual({
      workflows: 'explora-workflows',
      storage: 'explora-storage',
      llm: 'explora-llm',
      sandbox: 'explora-sandbox',
    });
    expect(parseConfig({ EXPLORA_S3_ENDPOINT: 'aws' }).s3).toMatchObject({ endpoint: undefined, forcePathStyle: false });
  });

  it('names every bad variable and its value', () => {
    expect(() => parseConfig({ TEMPORAL_ADDRESS: 'localhost', EXPLORA_S3_BUCKET: 'Bad_Bucket' })).toThrow(ConfigError);
    try {
      parseConfig({ TEMPORAL_ADDRESS: 'localhost', EXPLORA_S3_BUCKET: 'Bad_Bucket' });
    } catch (err) {
      expect((err as Error).message).toContain('TEMPORAL_ADDRESS="localhost": must be host:port');
      expect((err as Error).message).toContain('EXPLORA_S3_BUCKET="Bad_Bucket": must be a valid S3 bucket name');
    }
  });

  it('EXPLORA_LOG_LEVEL: one of the SDK levels, any case; a misspelt one is refused', () => {
    expect(logLevelFrom({}, 'ERROR')).toBe('ERROR');
    expect(logLevelFrom({ EXPLORA_LOG_LEVEL: 'debug' }, 'ERROR')).toBe('DEBUG');
    expect(() => logLevelFrom({ EXPLORA_LOG_LEVEL: 'verbose' }, 'INFO')).toThrow(
      /EXPLORA_LOG_LEVEL="verbose": must be one of TRACE, DEBUG, INFO, WARN, ERROR/,
    );
  });

  it('EXPLORA_TEMPORAL_OFFLOAD_BYTES: the SDK default, 0 for every payload, a bad or too large value refused by name', () => {
    expect(parseConfig({}).temporal.offloadBytes).toBe(256 * 1024);
    expect(parseConfig({ EXPLORA_TEMPORAL_OFFLOAD_BYTES: '0' }).temporal.offloadBytes).toBe(0);
    expect(parseConfig({ EXPLORA_TEMPORAL_OFFLOAD_BYTES: '65536' }).temporal.offloadBytes).toBe(65536);
    expect(() => parseConfig({ EXPLORA_TEMPORAL_OFFLOAD_BYTES: '64k' })).toThrow(
      'EXPLORA_TEMPORAL_OFFLOAD_BYTES="64k": a whole number of bytes (0: every payload)',
    );
    expect(() => parseConfig({ EXPLORA_TEMPORAL_OFFLOAD_BYTES: '2097152' })).toThrow(
      'EXPLORA_TEMPORAL_OFFLOAD_BYTES="2097152": at most 1048576 (Temporal refuses payloads over 2 MiB)',
    );
  });

  it('documents every variable it reads', () => {
    const documented = ENV_DOC.map(([name]) => name);
    for (const name of [
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'EXPLORA_S3_ENDPOINT',
      'EXPLORA_S3_BUCKET',
      'EXPLORA_LOG_LEVEL',
      'EXPLORA_PYTHON',
      'EXPLORA_TEMPORAL_OFFLOAD_BYTES',
    ])
      expect(documented).toContain(name);
  });
});
