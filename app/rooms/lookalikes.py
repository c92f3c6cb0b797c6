"""Characters drawn like one Latin letter or digit, and that letter or digit.

From Unicode's confusables data (UTS #39, ``confusables.txt``): every character whose
prototype there is one ASCII letter or digit, in the form names are compared in (NFKC), less
those that form makes ASCII (fullwidth and mathematical letters). Each line of ``DRAWN_LIKE``
is followed by the letters its characters are drawn like, in order; ``AS`` holds them all.
"""

from __future__ import annotations

DRAWN_LIKE = (
    "\u00d7\u0131\u0184\u018d\u0196\u01a6\u01a7\u01b7"  # xibglR23
    "\u01bc\u01bd\u01c0\u021c\u0222\u0223\u0251\u0261"  # 5sl388ag
    "\u0263\u0269\u026a\u026f\u028b\u028f\u037f\u0391"  # yiiwuyJA
    "\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d"  # BEZHlKMN
    "\u039f\u03a1\u03a3\u03a4\u03a5\u03a7\u03b1\u03b3"  # OPCTYXay
    "\u03b9\u03bd\u03bf\u03c1\u03c2\u03c3\u03c5\u03dc"  # ivopcouF
    "\u03e8\u03f3\u03fa\u0405\u0406\u0408\u0410\u0412"  # 2jMSlJAB
    "\u0415\u0417\u041a\u041c\u041d\u041e\u0420\u0421"  # E3KMHOPC
    "\u0422\u0423\u0425\u042c\u0430\u0431\u0433\u0435"  # TYXba6re
    "\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458"  # opcyxsij
    "\u0461\u0474\u0475\u04ae\u04af\u04bb\u04bd\u04c0"  # wVvYyhel
    "\u04cf\u04e0\u0501\u050c\u051b\u051c\u051d\u054d"  # i3dGqWwU
    "\u054f\u0555\u0561\u0563\u0566\u0570\u0578\u057c"  # SOwqqhnn
    "\u057d\u0581\u0584\u0585\u05c0\u05d5\u05d8\u05df"  # ugfollvl
    "\u05e1\u0627\u0647\u0661\u0665\u0667\u06be\u06c1"  # ololoVoo
    "\u06d5\u06f1\u06f5\u06f7\u07c0\u07ca\u0966\u09e6"  # oloVOloO
    "\u09ea\u09ed\u0a66\u0a67\u0a6a\u0ae6\u0b03\u0b20"  # 89o98o8O
    "\u0b66\u0b68\u0be6\u0c02\u0c66\u0c82\u0ce6\u0d02"  # O9oooooo
    "\u0d20\u0d66\u0d6d\u0d82\u0e50\u0ed0\u101d\u1040"  # oo9ooooo
    "\u10e7\u10ff\u1200\u12d0\u13a0\u13a1\u13a2\u13a5"  # yoUODRTi
    "\u13a9\u13aa\u13ab\u13ac\u13b3\u13b7\u13bb\u13bd"  # YAJEWMHY
    "\u13c0\u13c2\u13c3\u13ce\u13cf\u13d2\u13d4\u13d5"  # GhZ4bRWS
    "\u13d9\u13da\u13de\u13df\u13e2\u13e6\u13e7\u13ee"  # VSLCPKd6
    "\u13f3\u13f4\u142f\u144c\u146d\u146f\u1472\u148d"  # GBVUPdbJ
    "\u14aa\u14bf\u1541\u157c\u157d\u1587\u15af\u15b4"  # L2xHxRbF
    "\u15c5\u15de\u15ea\u15f0\u15f7\u166d\u166e\u16b7"  # ADDMBXxX
    "\u16c1\u16d5\u16d6\u1d04\u1d0f\u1d11\u1d1c\u1d20"  # lKMcoouv
    "\u1d21\u1d22\u1d26\u1d83\u1d8c\u1e9d\u1eff\u212e"  # wzrgyfye
    "\u2223\u2228\u222a\u22a4\u22c1\u22c3\u22ff\u2373"  # lvUTvUEi
    "\u2374\u237a\u23fd\u2502\u2573\u27d9\u292b\u292c"  # pallXTxx
    "\u2a2f\u2c85\u2c8e\u2c92\u2c94\u2c98\u2c9a\u2c9e"  # xrHlKMNO
    "\u2c9f\u2ca2\u2ca3\u2ca4\u2ca5\u2ca6\u2ca8\u2cac"  # oPpCcTYX
    "\u2cca\u2ccc\u2cd0\u2cd2\u2d38\u2d39\u2d4f\u2d54"  # 93L6VElO
    "\u2d55\u2d5d\u3007\ua4d0\ua4d1\ua4d2\ua4d3\ua4d4"  # QXOBPdDT
    "\ua4d6\ua4d7\ua4d9\ua4da\ua4dc\ua4dd\ua4df\ua4e0"  # GKJCZFMN
    "\ua4e1\ua4e2\ua4e3\ua4e6\ua4e7\ua4ea\ua4eb\ua4ec"  # LSRVHWXY
    "\ua4ee\ua4f0\ua4f2\ua4f3\ua4f4\ua644\ua647\ua6df"  # AElOU2iV
    "\ua6ef\ua731\ua75a\ua76a\ua76e\ua798\ua799\ua79f"  # 2s239Ffu
    "\ua7ab\ua7b2\ua7b3\ua7b4\uab32\uab35\uab3d\uab47"  # 3JXBefor
    "\uab48\uab4e\uab52\uab5a\uab75\uab81\uab83\uab93"  # ruuyirwz
    "\uaba9\uabaa\uabaf\U00010282\U00010286\U00010287\U0001028a\U00010290"  # vscBEFlX
    "\U00010292\U00010295\U00010296\U00010297\U000102a0\U000102a1\U000102a2\U000102a5"  # OPSTABCF
    "\U000102ab\U000102b0\U000102b1\U000102b2\U000102b4\U000102cf\U000102f5\U00010301"  # OMTYXHZB
    "\U00010302\U00010309\U00010311\U00010315\U00010317\U0001031a\U00010320\U00010322"  # ClMTX8lX
    "\U00010404\U00010415\U0001041b\U00010420\U0001042c\U0001043d\U00010448\U000104b4"  # OCLSocsR
    "\U000104c2\U000104ce\U000104d2\U000104ea\U000104f6\U00010513\U00010516\U00010518"  # OU7ouNOK
    "\U0001051c\U0001051d\U00010525\U00010526\U00010527\U000114d0\U00011706\U0001170a"  # CVFLXOvw
    "\U0001170e\U0001170f\U000118a0\U000118a2\U000118a3\U000118a4\U000118a6\U000118a9"  # wwVFLYEZ
    "\U000118ac\U000118ae\U000118af\U000118b2\U000118b5\U000118b8\U000118bb\U000118bc"  # 9E4LOU5T
    "\U000118c0\U000118c1\U000118c2\U000118c3\U000118c4\U000118c6\U000118c8\U000118ca"  # vsFiz7o3
    "\U000118cc\U000118d5\U000118d6\U000118d7\U000118d8\U000118dc\U000118e0\U000118e5"  # 969ouyOZ
    "\U000118e6\U000118e9\U000118ec\U000118ef\U000118f2\U00016f08\U00016f0a\U00016f16"  # WCXWCVTL
    "\U00016f28\U00016f35\U00016f3a\U00016f3b\U00016f40\U00016f42\U00016f43\U0001d206"  # lRS3AUY3
    "\U0001d20d\U0001d212\U0001d213\U0001d216\U0001d22a\U0001e8c7\U0001e8cb\U0001f74c"  # V7FRLl8C
    "\U0001f768"  # T
)
AS = (
    "xibglR235sl388agyiiwuyJABEZHlKMNOPCTYXayivopcouF2jMSlJABE3KMHOPCTYXba6reopcyxsij"
    "wVvYyheli3dGqWwUSOwqqhnnugfollvlololoVoooloVOloO89o98o8OO9oooooooo9oooooyoUODRTi"
    "YAJEWMHYGhZ4bRWSVSLCPKd6GBVUPdbJL2xHxRbFADDMBXxXlKMcoouvwzrgyfyelvUTvUEipallXTxx"
    "xrHlKMNOoPpCcTYX93L6VElOQXOBPdDTGKJCZFMNLSRVHWXYAElOU2iV2s239Ffu3JXBeforruuyirwz"
    "vscBEFlXOPSTABCFOMTYXHZBClMTX8lXOCLSocsROU7ouNOKCVFLXOvwwwVFLYEZ9E4LOU5TvsFiz7o3"
    "969ouyOZWCXWCVTLlRS3AUY3V7FRLl8CT"
)
