/** The SDK's clock is the shared one (`@breakerbox/protocol`); re-exported for the policies' imports. */
export { systemClock, sleep, type Clock, type TimerHandle } from '@breakerbox/protocol';
