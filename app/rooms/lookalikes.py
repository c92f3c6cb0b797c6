"""Characters drawn like one Latin letter or digit, and that letter or digit.

From Unicode's confusables data (UTS #39, ``confusables.txt``, version 17.0.0): every entry
mapping one character to one ASCII letter or digit, where that character is not ASCII, is
named in this Python's Unicode database and is left as it is by the form names are compared
in (NFKC). Each line of ``DRAWN_LIKE`` is followed by the letters its characters are drawn
like, in order; ``AS`` holds them all.
"""

from __future__ import annotations

DRAWN_LIKE = (
    "\u00d7\u00fe\u0131\u0184\u018d\u0192\u0196\u01a6"  # xpibgflR
    "\u01a7\u01b7\u01bc\u01bd\u01bf\u01c0\u021c\u0222"  # 235spl38
    "\u0223\u0251\u0261\u0263\u0269\u026a\u026f\u028b"  # 8agyiiwu
    "\u028f\u037f\u0391\u0392\u0395\u0396\u0397\u0399"  # yJABEZHl
    "\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7"  # KMNOPTYX
    "\u03b1\u03b3\u03b9\u03bd\u03bf\u03c1\u03c3\u03c5"  # ayivopou
    "\u03dc\u03e8\u03ec\u03ed\u03f3\u03f8\u03fa\u0405"  # F26ojpMS
    "\u0406\u0408\u0410\u0412\u0415\u0417\u041a\u041c"  # lJABE3KM
    "\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u042c"  # HOPCTYXb
    "\u0430\u0431\u0433\u0435\u043e\u0440\u0441\u0443"  # a6reopcy
    "\u0445\u0448\u0455\u0456\u0458\u0461\u0474\u0475"  # xwsijwVv
    "\u04ae\u04af\u04bb\u04bd\u04c0\u04cf\u04e0\u0501"  # Yyhell3d
    "\u050c\u051b\u051c\u051d\u054d\u054f\u0555\u0561"  # GqWwUSOw
    "\u0563\u0566\u0570\u0578\u057c\u057d\u0581\u0582"  # qqhnnugi
    "\u0584\u0585\u05c0\u05d5\u05d8\u05df\u05e1\u0627"  # follvlol
    "\u0647\u0661\u0665\u0667\u06be\u06c1\u06d5\u06f1"  # oloVoool
    "\u06f5\u06f7\u07c0\u07ca\u0966\u0969\u09e6\u09ea"  # oVOlo3o8
    "\u09ed\u0a66\u0a67\u0a6a\u0ae6\u0ae9\u0b03\u0b20"  # 9o98o38O
    "\u0b66\u0b68\u0be6\u0c02\u0c66\u0c82\u0ce6\u0d02"  # o9ooooOo
    "\u0d1f\u0d20\u0d66\u0d6d\u0d82\u0e50\u0ed0\u1004"  # soo9oooc
    "\u101d\u1040\u105a\u10e7\u10ff\u1200\u12d0\u13a0"  # oocyoUOD
    "\u13a1\u13a2\u13a5\u13a9\u13aa\u13ab\u13ac\u13b3"  # RTiYAJEW
    "\u13b7\u13bb\u13bd\u13c0\u13c2\u13c3\u13ce\u13cf"  # MHYGhZ4b
    "\u13d2\u13d4\u13d5\u13d9\u13da\u13de\u13df\u13e2"  # RWSVSLCP
    "\u13e6\u13e7\u13ee\u13f3\u13f4\u142f\u144c\u146d"  # Kd6GBVUP
    "\u146f\u1472\u148d\u14aa\u14bf\u1541\u157c\u157d"  # dbJL2xHx
    "\u1587\u15af\u15b4\u15c5\u15de\u15ea\u15f0\u15f7"  # RbFADDMB
    "\u166d\u166e\u16b7\u16c1\u16d5\u16d6\u17e0\u1d04"  # XxXlKMoc
    "\u1d0f\u1d11\u1d1c\u1d20\u1d21\u1d22\u1d26\u1d83"  # oouvwzrg
    "\u1d8c\u1e9d\u1eff\u212e\u2223\u2228\u222a\u22a4"  # yfyelvUT
    "\u22c1\u22c3\u22ff\u2373\u2374\u237a\u23fd\u2573"  # vUEipalX
    "\u27d9\u292b\u292c\u2a2f\u2c82\u2c85\u2c8e\u2c92"  # TxxxBrHl
    "\u2c93\u2c94\u2c98\u2c9a\u2c9c\u2c9e\u2c9f\u2ca2"  # iKMN3OoP
    "\u2ca3\u2ca4\u2ca5\u2ca6\u2ca8\u2ca9\u2cac\u2cbd"  # pCcTYyXw
    "\u2cc4\u2cca\u2ccb\u2ccc\u2cce\u2ccf\u2cd0\u2cd2"  # 3993PpL6
    "\u2cd3\u2cdc\u2d38\u2d39\u2d4f\u2d54\u2d55\u2d5d"  # 66VElOQX
    "\u3007\ua4d0\ua4d1\ua4d2\ua4d3\ua4d4\ua4d6\ua4d7"  # OBPdDTGK
    "\ua4d9\ua4da\ua4dc\ua4dd\ua4df\ua4e0\ua4e1\ua4e2"  # JCZFMNLS
    "\ua4e3\ua4e6\ua4e7\ua4ea\ua4eb\ua4ec\ua4ee\ua4f0"  # RVHWXYAE
    "\ua4f2\ua4f3\ua4f4\ua644\ua647\ua6df\ua6ef\ua731"  # lOU2iV2s
    "\ua75a\ua76a\ua76e\ua798\ua799\ua79f\ua7ab\ua7b2"  # 239Ffu3J
    "\ua7b3\ua7b4\uab32\uab35\uab3d\uab47\uab48\uab4e"  # XBeforru
    "\uab52\uab5a\uab75\uab81\uab83\uab93\uaba9\uabaa"  # uyirwzvs
    "\uabaf\U00010282\U00010286\U00010287\U0001028a\U00010290\U00010292\U00010295"  # cBEFlXOP
    "\U00010296\U00010297\U000102a0\U000102a1\U000102a2\U000102a5\U000102ab\U000102b0"  # STABCFOM
    "\U000102b1\U000102b2\U000102b4\U000102cf\U000102f5\U00010301\U00010302\U00010309"  # TYXHZBCl
    "\U00010311\U00010315\U00010317\U0001031a\U00010320\U00010322\U00010404\U00010415"  # MTX8lXOC
    "\U0001041b\U00010420\U0001042c\U0001043d\U00010448\U000104b4\U000104c2\U000104ce"  # LSocsROU
    "\U000104d2\U000104ea\U000104f6\U00010513\U00010516\U00010518\U0001051c\U0001051d"  # 7ouNOKCV
    "\U00010525\U00010526\U00010527\U000114d0\U00011706\U0001170a\U0001170e\U0001170f"  # FLXovwww
    "\U000118a0\U000118a2\U000118a3\U000118a4\U000118a6\U000118a9\U000118ac\U000118ae"  # VFLYEZ9E
    "\U000118af\U000118b2\U000118b5\U000118b8\U000118bb\U000118bc\U000118c0\U000118c1"  # 4LOU5Tvs
    "\U000118c2\U000118c3\U000118c4\U000118c6\U000118c8\U000118ca\U000118cc\U000118d5"  # Fiz7o396
    "\U000118d6\U000118d7\U000118d8\U000118dc\U000118e0\U000118e5\U000118e6\U000118e9"  # 9ouyOZWC
    "\U000118ec\U000118ef\U000118f2\U00016f08\U00016f0a\U00016f16\U00016f28\U00016f35"  # XWCVTLlR
    "\U00016f3a\U00016f3b\U00016f40\U00016f42\U00016f43\U0001d206\U0001d20d\U0001d212"  # S3AUY3V7
    "\U0001d213\U0001d216\U0001d22a\U0001e8c7\U0001e8cb\U0001f74c\U0001f768"  # FRLl8CT
)
AS = (
    "xpibgflR235spl388agyiiwuyJABEZHlKMNOPTYXayivopouF26ojpMSlJABE3KMHOPCTYXba6reopcy"
    "xwsijwVvYyhell3dGqWwUSOwqqhnnugifollvlololoVoooloVOlo3o89o98o38Oo9ooooOosoo9oooc"
    "oocyoUODRTiYAJEWMHYGhZ4bRWSVSLCPKd6GBVUPdbJL2xHxRbFADDMBXxXlKMocoouvwzrgyfyelvUT"
    "vUEipalXTxxxBrHliKMN3OoPpCcTYyXw3993PpL666VElOQXOBPdDTGKJCZFMNLSRVHWXYAElOU2iV2s"
    "239Ffu3JXBeforruuyirwzvscBEFlXOPSTABCFOMTYXHZBClMTX8lXOCLSocsROU7ouNOKCVFLXovwww"
    "VFLYEZ9E4LOU5TvsFiz7o3969ouyOZWCXWCVTLlRS3AUY3V7FRLl8CT"
)
