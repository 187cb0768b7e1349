import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger (`request.log`) that makes pino's child logger only when
 * something is logged. Fastify makes one child per request; with the
 * logger's `redact` paths that costs ~0.8 µs (the bindings are serialised and
 * redacted), a few per cent of a hot lookup that at the default level logs
 * nothing. What a line carries is unchanged: the child, once made, has the
 * same bindings (the request id) and options.
 */
class LazyChildLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  // A level set on the request's logger belongs to its child; read without one, it is the route's or the parent's.
  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(value: string) {
    this.real.level = value;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  private call(method: Method, args: unknown[]): void {
    const real = this.real as unknown as Record<Method, (...a: unknown[]) => void>;
    real[method](...args);
  }

  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  info(...args: unknown[]): void {
    this.call('info', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  /** pino's silent level logs nothing: no child is made for it. */
  silent(): void {}
}

/** Fastify's `childLoggerFactory` (app.ts). */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
