/** The connector core (PRODUCT.md §10): what every switch connector shares. Names exported here stay stable. */
export { SwitchApi, SwitchApiError } from './api-client.js';
export type { ApiConnection, SwitchEvent, IngestAnswer, SwitchConfig, SwitchState, DecideAnswer } from './api-client.js';
export { EventBatcher, type BatcherOptions } from './batcher.js';
export { CommandStream, isCampaignDial } from './command-stream.js';
export type { AgentStateCommand, CommandHandlers, CommandStreamOptions, OriginateCommand, TakeoverCommand } from './command-stream.js';
export { switchEventId, switchTime, visitCallId } from './event-ids.js';
export { Health, type ConnectionState } from './health.js';
export { OnceLog, stderrLine, type LogLine } from './log.js';
export { SwitchMapper, destExtension, memberExtension, queueName, type MapperOptions } from './mapping.js';
export { OptionError, apiConnection, hostPort, parseIdMap } from './options.js';
export { ConnectorRuntime, connectorOptions } from './runtime.js';
export type { ConnectorOptions, RuntimeOptions } from './runtime.js';
export { SseParser, type SseMessage } from './sse.js';
export { runUntilSignal } from './run-until-signal.js';
