/** The alert channels' paths, for links and for the routes alike. */

/** Where "Add a channel" leads. */
export const NEW_CHANNEL_PATH = '/channels/new';
/** Where the channel form posts. */
export const CHANNELS_PATH = '/channels';

/** A channel's page: `/channels/{id}`. */
export function channelPath(channelId: string): string {
  return `/channels/${channelId}`;
}

/** Where an e-mail channel's confirmation link leads (GET: a button; POST: confirms). */
export const CONFIRM_CHANNEL_PATH = '/channels/confirm';

/** Where a channel's "Send a test alert" posts. */
export function testChannelPath(channelId: string): string {
  return `${channelPath(channelId)}/test`;
}

/** Where a channel's "Remove" posts. */
export function removeChannelPath(channelId: string): string {
  return `${channelPath(channelId)}/remove`;
}

/** Where the form on a channel's page that changes its sites posts. */
export function channelSitesPath(channelId: string): string {
  return `${channelPath(channelId)}/sites`;
}

/** Where a waiting address's "Send the link again" posts. */
export function resendChannelPath(channelId: string): string {
  return `${channelPath(channelId)}/resend`;
}
