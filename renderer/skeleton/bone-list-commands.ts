/** The bone list's switch (`panel.bones`, key O): opens or closes the list, and says whether it is open. */
import { toggled, type HandlersFor } from '../commands/command-handlers.ts';

/** What the command uses of the app: the bone list panel's open state. */
export interface BoneListCommandsHost {
  readonly boneList: { readonly open: boolean; setOpen(open: boolean): void };
}

export function boneListCommands({ boneList }: BoneListCommandsHost): HandlersFor<'panel.bones'> {
  return {
    'panel.bones': { run: () => toggled(!boneList.open, (on) => boneList.setOpen(on)), checked: () => boneList.open },
  };
}
