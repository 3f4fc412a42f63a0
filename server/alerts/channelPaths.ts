/** The alert channels' paths, for links and for the routes alike. */

/** Where "Add a channel" leads. */
export const NEW_CHANNEL_PATH = '/channels/new';
/** Where the channel form posts. */
export const CHANNELS_PATH = '/channels';

/** A channel's page: `/channels/{id}`. */
export function channelPath(channelId: string): string {
  return `/channels/${channelId}`;
}
