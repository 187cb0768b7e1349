import { Type } from '@sinclair/typebox';
import { SuccessSchema } from '../../http/envelope.js';
import { IdSchema } from '../../http/ids.js';

const GroupName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Group name (not blank)' });
/** A group id: a malformed one names no group, hence 1006. */
export const GroupId = IdSchema({ code: 1006, description: 'Group id, scoped to the account (number or string of digits)' });

export const CreateGroupBody = Type.Object({
  groupId: Type.Optional(IdSchema({ code: 1000, description: 'Explicit id (e.g. 55); omitted: the next free id of the account' })),
  name: GroupName,
});
export const UpdateGroupBody = Type.Object({ groupId: GroupId, name: GroupName });
export const DeleteGroupBody = Type.Object({ groupId: GroupId });
export const ListGroupsBody = Type.Object({});

export const GroupIdResponse = SuccessSchema({ message: Type.String(), data: Type.Object({ groupId: Type.Integer() }) });
export const MessageResponse = SuccessSchema({ message: Type.String() });
export const ListGroupsResponse = SuccessSchema({
  data: Type.Array(
    Type.Object({
      groupId: Type.Integer(),
      name: Type.String(),
      create_date: Type.Integer({ description: 'Unix seconds' }),
      agentCount: Type.Integer({ description: 'Agents mapped to the group' }),
    }),
  ),
});
