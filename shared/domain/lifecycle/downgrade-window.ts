import type { AppContext } from '#shared/context';

/** An account's grace window after a confirmed downgrade: its excess is archived when it ends. */
export interface DowngradeWindow {
  user_id: string;
  until: string;
  from_plan_id: string;
  to_plan_id: string;
  confirmed_at: string;
}

/** The grace window as SPEC shows it: until when (null without one) and the seconds left. */
export function windowOut(window: DowngradeWindow | undefined, ctx: AppContext) {
  if (!window) return { until: null, remaining_seconds: 0 };
  return {
    until: window.until,
    remaining_seconds: Math.max(0, Math.floor((Date.parse(window.until) - ctx.clock.now().getTime()) / 1000)),
  };
}
